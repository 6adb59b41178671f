# The package's version: pyproject.toml's [project] version says the same (tests/test_generated.py checks it).
__version__ = "0.3.0"
