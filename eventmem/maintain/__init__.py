"""eventmem/maintain"""
