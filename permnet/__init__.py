"""permnet: interconnection-network theory turned into switch configurations and RTL."""
__version__ = "0.1.0"
