"""eventmem/policies/observer"""
