@0: load.u 0, mov.v1 $0 ^const0.xyxy, mov.s1 $1.x ^uniform.x, const0 0.000000 1.000000 0.000000 0.000000, stop
