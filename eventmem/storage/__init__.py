"""eventmem/storage"""
