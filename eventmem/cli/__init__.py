"""eventmem/cli"""
