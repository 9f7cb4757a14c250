"""permnet.hdl"""
