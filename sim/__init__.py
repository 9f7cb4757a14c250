"""permnet.sim"""
