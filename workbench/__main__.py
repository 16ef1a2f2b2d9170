"""`python -m workbench …` is the `workbench` command (useful from a checkout without an install)."""

from workbench.cli import main

main()
