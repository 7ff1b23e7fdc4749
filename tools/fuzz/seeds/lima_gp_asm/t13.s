000:	sign.a0 ^0 t[0].x
