"""KBGym: a Gymnasium environment in which agents train a knowledge base."""

__version__ = "0.1.0"
