@0: add.s1 $0.w ^const0.x ^const0.x, const0 0.000000 0.000000 0.000000 0.000000
@4: mov.v1 $0 $0.wwww, stop
