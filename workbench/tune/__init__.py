"""Hard-negative fine-tuning of the project's sentence-transformers embedder (`workbench tune`).

``split`` draws a seeded training split of the labelled queries; ``train`` fine-tunes the embedder
on (query, gold, hard negative) of the training queries only, with sentence-transformers' own
trainer and MultipleNegativesRankingLoss, and saves it under the project; ``retrieval`` indexes the
tiers with it and ranks the *held-out* queries only, as the systems ``dense@tuned`` and
``hybrid@tuned``, so every figure of a tuned system is a held-out figure by construction.
"""
