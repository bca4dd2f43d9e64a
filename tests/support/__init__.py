"""Helpers the tests share: corpus writers, document factories, spies and checks.

Test modules import them as `support.<module>` (pytest puts tests/ on sys.path, since tests/ is
not a package); no test module imports another test module (tests/test_support_rules.py).
"""
