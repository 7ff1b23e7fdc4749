@0: load.v $0 1, stop
