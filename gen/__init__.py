"""permnet.gen"""
