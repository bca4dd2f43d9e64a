"""The peers bench_chunk.py measures beside our chunkers: LangChain, Chonkie, LlamaIndex.

Each factory imports and configures a peer (not timed) and returns a function that chunks a
list of Markdown texts and returns how many chunks it made.
"""

from __future__ import annotations

from collections.abc import Callable

from policy_assistant.text import count_words

# Each factory imports and configures a peer (not timed) and returns a function that chunks a
# list of Markdown texts, offsets included where the library offers them, and returns how many
# chunks it made. Sizes match ours: 100 words, 25 overlapping (Chonkie's recursive chunker has
# no overlap); the character-sized rows use 600/150 characters, about 100/25 words here.
Run = Callable[[list[str]], int]


def peer_str_split() -> Run:
    return lambda texts: sum(len(t.split()) for t in texts)


def peer_langchain_recursive_chars() -> Run:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=600, chunk_overlap=150, add_start_index=True
    )
    return lambda texts: len(splitter.create_documents(texts))


def peer_langchain_markdown_chars() -> Run:
    from langchain_text_splitters import MarkdownTextSplitter

    splitter = MarkdownTextSplitter(chunk_size=600, chunk_overlap=150, add_start_index=True)
    return lambda texts: len(splitter.create_documents(texts))


def peer_langchain_recursive_words() -> Run:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=100, chunk_overlap=25, length_function=count_words, add_start_index=True
    )
    return lambda texts: len(splitter.create_documents(texts))


def peer_chonkie_recursive() -> Run:
    from chonkie import RecursiveChunker

    chunker = RecursiveChunker(tokenizer="word", chunk_size=100)
    return lambda texts: sum(len(chunker.chunk(t)) for t in texts)


def peer_llamaindex_sentence() -> Run:
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.node_parser import SentenceSplitter

    splitter = SentenceSplitter(chunk_size=100, chunk_overlap=25, tokenizer=str.split)
    return lambda texts: len(
        splitter.get_nodes_from_documents([LlamaDocument(text=t) for t in texts])
    )


def peer_llamaindex_token() -> Run:
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.node_parser import TokenTextSplitter

    splitter = TokenTextSplitter(chunk_size=100, chunk_overlap=25, tokenizer=str.split)
    return lambda texts: len(
        splitter.get_nodes_from_documents([LlamaDocument(text=t) for t in texts])
    )


PEERS: dict[str, Callable[[], Run]] = {
    "python str.split (words only)": peer_str_split,
    "langchain recursive 600/150 chars": peer_langchain_recursive_chars,
    "langchain markdown 600/150 chars": peer_langchain_markdown_chars,
    "langchain recursive 100/25 words": peer_langchain_recursive_words,
    "chonkie recursive 100 words": peer_chonkie_recursive,
    "llamaindex sentence 100/25 words": peer_llamaindex_sentence,
    "llamaindex token 100/25 words": peer_llamaindex_token,
}
