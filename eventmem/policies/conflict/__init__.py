"""eventmem/policies/conflict"""
