"""eventmem/text"""
