#!/usr/bin/env python3
# Generates the mechanical execution workloads of bench/workloads/: W4 (a chain of 1000 adds on a
# [4] tensor) and the sgemm shapes. Output is in `rlx print` form; rerun after changing a shape.
import os
import sys

HEADER = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n"
SGEMM = [(1024, 1024, 1024), (1, 784, 512), (64, 784, 512), (128, 768, 2304), (128, 768, 3072), (128, 3072, 768)]
CHAIN = 1000


def t(shape):
    return 'R.Tensor((%s), dtype="float32")' % (", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""))


def add_chain(n):
    lines = [HEADER + "    def main(x: %s, y: %s) -> %s:\n" % (t([4]), t([4]), t([4])), "        with R.dataflow():\n"]
    prev = "x"
    for i in range(n):
        name = "gv" if i == n - 1 else "lv%d" % i if i else "lv"
        lines.append("            %s: %s = R.add(%s, y)\n" % (name, t([4]), prev))
        prev = name
    lines.append("            R.output(gv)\n        return gv\n")
    return "".join(lines)


def sgemm(m, k, n):
    return (HEADER + "    def main(a: %s, b: %s) -> %s:\n" % (t([m, k]), t([k, n]), t([m, n])) +
            "        with R.dataflow():\n            gv: %s = R.matmul(a, b, out_dtype=\"void\")\n" % t([m, n]) +
            "            R.output(gv)\n        return gv\n")


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads")
    files = {"add_chain.relax": add_chain(CHAIN)}
    for m, k, n in SGEMM:
        files["sgemm_%dx%dx%d.relax" % (m, k, n)] = sgemm(m, k, n)
    for name, text in files.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
        print("wrote", os.path.join(out, name), file=sys.stderr)


if __name__ == "__main__":
    main()
