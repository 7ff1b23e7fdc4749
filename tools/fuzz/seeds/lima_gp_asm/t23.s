000:	mov.a0 ^0/$3.xy t[0].x
