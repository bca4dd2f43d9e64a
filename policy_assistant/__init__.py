"""policy-assistant: a citable knowledge base from PDFs and Markdown, with honest figures."""

from policy_assistant.records import Block, Chunk, Document

__version__ = "0.1.0"

__all__ = ["Block", "Chunk", "Document", "__version__"]
