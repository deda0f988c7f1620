"""eventmem/write"""
