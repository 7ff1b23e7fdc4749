@0: load.v $1.x 2.x, load.u 1, eq.s1 $3.w ^uniform.y ^const0.x, const0 0.000000 0.000000 0.000000 0.000000
@7: load.v $2.x 2.y, load.u 0, mov.v0 $0.xyz ^uniform.xyzx , mul.s0 $2.y ^uniform.w ^const0.x, dFdx.v1 $1.y $1.xxxx -$1.xxxx, dFdy.s1 $0.w $1.x -$1.x, const0 0.500000 0.000000 0.000000 0.000000, sync
@17: load.v $3.x 2.z, dFdx.v1 $2.w $2.xxxx -$2.xxxx, dFdy.s1 $1.w $2.x -$2.x, sync
@22: load.v $4.x gl_FrontFacing, dFdx.v1 $2.z $3.xxxx -$3.xxxx, dFdy.s1 $1.z $3.x -$3.x, sync
@27: add.v1 $1.w abs($1.wwww) abs($2.wwww), add.s1 $0.w abs($0.w) abs($1.y)
@31: load.u 1, eq.s0 ^fmul $0.w ^const0.x, sel.v1 $1.y ^const0.xxxx ^uniform.yyyy, add.s1 $1.z abs($1.z) abs($2.z), const0 0.000000 0.000000 0.000000 0.000000
@39: load.u 1, eq.s0 ^fmul $1.w ^const0.x, sel.s1 $2.w ^const0.x ^uniform.y, const0 0.000000 0.000000 0.000000 0.000000
@46: ne.s0 ^fmul $3.w ^const0.x, sel.s1 $0.w ^const0.x $0.w, const0 0.000000 0.000000 0.000000 0.000000
@51: mul.v0 $1.y $0.wwww $1.yyyy, ne.s0 ^fmul $3.w ^const0.x, sel.s1 $0.w ^const0.x $1.w, const0 0.000000 0.000000 0.000000 0.000000
@58: load.u 1, mul.v0 $2.w $0.wwww $2.wwww, eq.s0 ^fmul $1.z ^const0.x, sel.s1 $0.w ^const0.x ^uniform.y, rcp.s2 $1.y $1.y, const0 0.000000 0.000000 0.000000 0.000000
@67: ne.s0 ^fmul $3.w ^const0.x, sel.s1 $1.w ^const0.x $1.z, rcp.s2 $1.z $2.w, const0 0.000000 0.000000 0.000000 0.000000
@73: mul.s0 $0.w $1.w $0.w
@75: eq.s0 ^fmul $1.x ^const0.x, sel.s1 $1.w ^const0.x $1.y, rcp.s2 $0.w $0.w, const0 0.000000 0.000000 0.000000 0.000000
@81: eq.s0 ^fmul $2.x ^const0.x, sel.s1 $2.w ^const0.x $1.z, const0 0.000000 0.000000 0.000000 0.000000
@86: eq.s0 ^fmul $1.y ^const0.x, sel.s1 $2.z ^const0.x $1.x, const0 0.000000 0.000000 0.000000 0.000000
@91: mul.v0 $3.w $1.wwww $2.zzzz, eq.s0 ^fmul $1.z ^const0.x, sel.s1 $2.z ^const0.x $2.x, const0 0.000000 0.000000 0.000000 0.000000
@98: mul.v0 $2.w $2.wwww $2.zzzz, eq.s0 ^fmul $3.x ^const0.x, mov.sat.v1 $2.z $3.wwww, sel.s1 $2.x ^const0.x $0.w, const0 0.000000 0.000000 0.000000 0.000000
@106: mul.v0 $3.w $2.zzzz $2.zzzz, eq.s0 ^fmul $0.w ^const0.x, mov.sat.v1 $2.w $2.wwww, sel.s1 $0.w ^const0.x $3.x, const0 0.000000 0.000000 0.000000 0.000000
@114: mul.v0 $2.x $2.wwww $2.wwww, mul.s0 $0.w $2.x $0.w
@118: mul.v0 ^vmul $2.zzzz ^const0.xxxx, add.v1 $2.z ^vmul ^const0.yyyy, mov.sat.s1 $0.w $0.w, const0 -2.000000 3.000000 0.000000 0.000000
@125: mul.v0 $2.w $0.wwww $0.wwww, mul.s0 ^fmul $2.w ^const0.x, add.s1 $3.z ^fmul ^const0.y, const0 -2.000000 3.000000 0.000000 0.000000
@132: mul.s0 ^fmul $0.w ^const0.x, add.s1 $0.w ^fmul ^const0.y, const0 -2.000000 3.000000 0.000000 0.000000
@137: eq.s0 ^fmul $2.z ^const0.x, sel.s1 $3.y ^const0.x $3.w, const0 0.000000 0.000000 0.000000 0.000000
@142: eq.s0 ^fmul $3.w ^const0.x, sel.s1 $2.z ^const0.x $2.z, const0 0.000000 0.000000 0.000000 0.000000
@147: mul.v0 $2.z $3.yyyy $2.zzzz, eq.s0 ^fmul $3.z ^const0.x, sel.s1 $3.w ^const0.x $2.x, const0 0.000000 0.000000 0.000000 0.000000
@154: eq.s0 ^fmul $2.x ^const0.x, sel.s1 $2.x ^const0.x $3.z, const0 0.000000 0.000000 0.000000 0.000000
@159: mul.s0 $2.x $3.w $2.x
@161: eq.s0 ^fmul $0.w ^const0.x, min.v1 $2.x $2.xxxx $2.zzzz, sel.s1 $2.z ^const0.x $2.w, const0 0.000000 0.000000 0.000000 0.000000
@168: eq.s0 ^fmul $2.w ^const0.x, sel.s1 $0.w ^const0.x $0.w, const0 0.000000 0.000000 0.000000 0.000000
@173: mul.s0 $0.w $2.z $0.w
@175: load.u 0, ne.s0 ^fmul $4.x ^const0.x, sel.v1 $1.w $2.yyyy ^uniform.wwww, min.s1 $0.w $0.w $2.x, const0 0.000000 0.000000 0.000000 0.000000
@183: add.s1 $0.w ^const0.x -$0.w, const0 1.000000 0.000000 0.000000 0.000000
@187: eq.s0 ^fmul $0.w ^const0.x, sel.s1 $1.z ^const0.x $1.w, const0 0.000000 0.000000 0.000000 0.000000
@192: eq.s0 ^fmul $1.w ^const0.x, sel.s1 $0.w ^const0.x $0.w, const0 0.000000 0.000000 0.000000 0.000000
@197: mul.s0 $0.w $1.z $0.w, stop
