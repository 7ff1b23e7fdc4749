@0: load.v $0 9, stop
