"""eventmem/policies/extract"""
