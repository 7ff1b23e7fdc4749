@0: load.v ^discard.xy 3.xy, texld 1, mov.v0 $0 ^texture , sync
@6: load.v $1.x 1.x
@9: load.v $2.x 1.y, eq.s0 ^fmul $1.x ^const0.x, sel.s1 $1.w ^const0.x $0.x, const0 0.000000 0.000000 0.000000 0.000000
@15: load.v $4.x 1.z, eq.s0 ^fmul $2.x ^const0.x, sel.s1 $1.z ^const0.x $0.y, const0 0.000000 0.000000 0.000000 0.000000
@21: load.v ^discard.xyz cube(4), texld.cube 0, mov.v0 $3 ^texture , eq.s0 ^fmul $4.x ^const0.x, sel.s1 $1.y ^const0.x $0.z, const0 0.000000 0.000000 0.000000 0.000000, sync
@31: load.v $5.x 1.w, eq.s0 ^fmul $0.x ^const0.x, sel.s1 $0.x ^const0.x $1.x, const0 0.000000 0.000000 0.000000 0.000000
@37: mul.v0 $2.w $1.wwww $0.xxxx, eq.s0 ^fmul $5.x ^const0.x, sel.s1 $0.x ^const0.x $0.w, const0 0.000000 0.000000 0.000000 0.000000
@44: eq.s0 ^fmul $0.w ^const0.x, sel.s1 $0.w ^const0.x $5.x, const0 0.000000 0.000000 0.000000 0.000000
@49: mul.v0 $0.y $0.xxxx $0.wwww, eq.s0 ^fmul $0.y ^const0.x, sel.s1 $0.w ^const0.x $2.x, const0 0.000000 0.000000 0.000000 0.000000
@56: mul.v0 $0.z $1.zzzz $0.wwww, eq.s0 ^fmul $0.z ^const0.x, sel.s1 $1.x ^const0.x $4.x, const0 0.000000 0.000000 0.000000 0.000000
@63: mul.s0 $4.w $1.y $1.x
@65: load.v $0.x 2.x, eq.s0 ^fmul $3.x ^const0.x, sel.s1 $2.z ^const0.x $0.y, const0 0.000000 0.000000 0.000000 0.000000
@71: load.v $1.x 2.y, eq.s0 ^fmul $3.y ^const0.x, sel.s1 $2.y ^const0.x $0.y, const0 0.000000 0.000000 0.000000 0.000000
@77: load.v $2.x 2.z, eq.s0 ^fmul $3.z ^const0.x, sel.s1 $0.w ^const0.x $0.y, const0 0.000000 0.000000 0.000000 0.000000
@83: eq.s0 ^fmul $0.y ^const0.x, sel.v1 $3.xyz ^const0.xxxx $3.xyzx, const0 0.000000 0.000000 0.000000 0.000000
@89: mul.v0 ^vmul $3.yyyy $2.yyyy, mul.s0 ^fmul $3.x $2.z, add.v1 $3.x ^vmul -$0.zzzz, add.s1 $3.y ^fmul -$2.w
@95: mul.s0 ^fmul $3.z $0.w, add.s1 $3.z ^fmul -$4.w
@98: eq.s0 ^fmul $0.y ^const0.x, sel.s1 $0.w ^const0.x $3.w, const0 0.000000 0.000000 0.000000 0.000000
@103: eq.s0 ^fmul $3.w ^const0.x, sel.s1 $3.w ^const0.x $0.y, const0 0.000000 0.000000 0.000000 0.000000
@108: mul.s0 $2.y $0.w $3.w
@110: load.u 0, eq.s0 ^fmul $3.y ^const0.x, eq.v1 $1.yzw ^uniform.xxyz ^const0.xxxx, sel.s1 $0.w ^const0.x $0.x, const0 0.000000 0.000000 0.000000 0.000000
@118: eq.s0 ^fmul $3.x ^const0.x, sel.s1 $3.w ^const0.x $1.x, const0 0.000000 0.000000 0.000000 0.000000
@123: eq.s0 ^fmul $3.z ^const0.x, sel.s1 $2.z ^const0.x $2.x, const0 0.000000 0.000000 0.000000 0.000000
@128: eq.s0 ^fmul $0.x ^const0.x, sel.s1 $0.x ^const0.x $3.y, const0 0.000000 0.000000 0.000000 0.000000
@133: mul.v0 ^vmul $0.wwww $0.xxxx, eq.s0 ^fmul $1.x ^const0.x, add.v1 $3.y ^vmul $2.wwww, sel.s1 $1.x ^const0.x $3.x, const0 0.000000 0.000000 0.000000 0.000000
@141: mul.v0 ^vmul $3.wwww $1.xxxx, eq.s0 ^fmul $2.x ^const0.x, add.v1 $2.w ^vmul $0.zzzz, sel.s1 $1.x ^const0.x $3.z, const0 0.000000 0.000000 0.000000 0.000000
@149: mul.s0 ^fmul $2.z $1.x, add.s1 $1.x ^fmul $4.w
@152: ne.s0 ^fmul $1.y ^const0.x, mov.v1 $0.w $0.yyyy, sel.s1 $1.y ^const0.x $2.y, const0 0.000000 0.000000 0.000000 0.000000
@159: ne.s0 ^fmul $1.z ^const0.x, sel.s1 $1.z ^const0.x $2.y, const0 0.000000 0.000000 0.000000 0.000000
@164: ne.s0 ^fmul $1.w ^const0.x, sel.s1 $1.w ^const0.x $2.y, const0 0.000000 0.000000 0.000000 0.000000
@169: load.u 0, eq.s0 ^fmul $2.y ^const0.x, sel.v1 $0.xyz ^const0.xxxx ^uniform.xyzx, const0 0.000000 0.000000 0.000000 0.000000
@176: mul.v0 ^vmul $0.yyyy $1.zzzz, mul.s0 ^fmul $0.x $1.y, add.v1 $0.y ^vmul $2.wwww, add.s1 $0.x ^fmul $3.y
@182: mul.s0 ^fmul $0.z $1.w, add.s1 $0.z ^fmul $1.x, stop
