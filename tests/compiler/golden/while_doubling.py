# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
def grad_while_doubling(x):
    tape = []
    # line 79: while x < 100.0:
    steps = 0
    x_1 = x
    while True:
        _t1 = x_1 < 100.0
        if not _t1:
            break
        # line 80: x = x * 2.0
        x_1 = x_1 * 2.0
        # line 81: steps += 1
        steps = steps + 1
        tape.append(())
    # line 79: while x < 100.0:
    _t2 = len(tape)
    dx = 1.0
    for _t3 in range(_t2):
        tape.pop()
        # line 80: x = x * 2.0
        dx = dx * 2.0
    dx_1 = float(dx)
    return dx_1
