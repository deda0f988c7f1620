"""eventmem/recall"""
