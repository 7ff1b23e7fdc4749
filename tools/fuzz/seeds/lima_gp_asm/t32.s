000:	mov.p ^4/v0.x unknown2
