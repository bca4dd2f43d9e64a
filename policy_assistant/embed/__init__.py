"""Sentence embeddings, offline: it owns finding a local model, turning text into vectors, and
the content-hash cache that keeps unchanged text from being embedded twice.

`model` resolves a model folder (Hugging Face / sentence-transformers layout) or a name in the
usual caches and never downloads; `encoder` tokenizes, runs the model (onnxruntime, or a
pure-numpy BERT forward pass from model.safetensors) and mean-pools; `cache` keys vectors by
the model's identity and the text; `text` says what of a unit is embedded. Nothing here is
imported by `policy_assistant` itself: onnxruntime and tokenizers (the `dense` extra) load
only when an encoder is built.
"""
