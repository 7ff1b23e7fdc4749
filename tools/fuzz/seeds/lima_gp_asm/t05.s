000:	mov.p ^4 reg0.$15.z
	branch ^4 000
	unknown_1 13
