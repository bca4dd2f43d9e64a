"""Run the command line as `python -m policy_assistant`."""

from policy_assistant.cli import main

main()
