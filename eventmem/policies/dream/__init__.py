"""eventmem/policies/dream"""
