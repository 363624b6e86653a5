// Reference evaluators of the linear algebra ops: matmul (numpy semantics: 1-D operands promoted,
// batch dims broadcast, operands cast to out_dtype first as TVM's kernel does), outer and einsum.
#include <fmt/format.h>

#include <map>

#include "ir/ops/eval_nn.h"

namespace rlx {
namespace {
using namespace ops;

// Operand shapes seen as (batch..., rows, cols) after numpy's 1-D promotion.
struct MatShape {
  Shape batch;
  int64_t rows, cols;
};

MatShape matShape(const Shape& s, bool isLhs) {
  if (s.size() == 1) return isLhs ? MatShape{{}, 1, s[0]} : MatShape{{}, s[0], 1};
  return {Shape(s.begin(), s.end() - 2), s[s.size() - 2], s[s.size() - 1]};
}

// C[i, j] += sum_k A[i, k] * B[k, j] in i-k-j order (unit stride over j).
template <typename T>
void gemmAccumulate(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      T av = a[i * k + p];
      const T* brow = b + p * n;
      T* crow = c + i * n;
      for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
    }
}

Result<Value> evalMatmul(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(a0, tensorValue(call, args, 0, "x1"));
  RLX_TRY(b0, tensorValue(call, args, 1, "x2"));
  RLX_TRY(out, allocResult(call));
  if (a0->shape.empty() || b0->shape.empty()) return evalError(call, "expects operands with at least 1 dimension");
  MatShape ma = matShape(a0->shape, true), mb = matShape(b0->shape, false);
  if (ma.cols != mb.rows) return evalError(call, fmt::format("reduction dims differ: {} vs {}", ma.cols, mb.rows));
  RLX_TRY(batch, broadcastShape(call, ma.batch, mb.batch));
  if (numelOf(batch) * ma.rows * mb.cols != out->numel()) return evalError(call, "the result shape does not match the operands");
  NDArrayRef a = castIfNeeded(a0, out->dtype), b = castIfNeeded(b0, out->dtype);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> av = loadAs<T>(*a), bv = loadAs<T>(*b), cv(size_t(out->numel()), T(0));
    int64_t m = ma.rows, k = ma.cols, n = mb.cols;
    Shape sa = stridesOf(ma.batch), sb = stridesOf(mb.batch);
    forEachIndex(batch, [&](const Shape& idx, int64_t flat) {
      int64_t oa = broadcastOffset(idx, ma.batch, sa) * m * k, ob = broadcastOffset(idx, mb.batch, sb) * k * n;
      gemmAccumulate(av.data() + oa, bv.data() + ob, cv.data() + flat * m * n, m, k, n);
    });
    storeAs(*out, cv);
  };
  if (out->dtype.isFloat()) run(double{});
  else run(uint64_t{});
  return Value::ofTensor(out);
}

Result<Value> evalOuter(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(a0, tensorValue(call, args, 0, "x1"));
  RLX_TRY(b0, tensorValue(call, args, 1, "x2"));
  RLX_TRY(out, allocResult(call));
  if (a0->numel() * b0->numel() != out->numel()) return evalError(call, "the result shape does not match the operands");
  NDArrayRef a = castIfNeeded(a0, out->dtype), b = castIfNeeded(b0, out->dtype);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> av = loadAs<T>(*a), bv = loadAs<T>(*b), cv;
    for (T x : av)
      for (T y : bv) cv.push_back(x * y);
    storeAs(*out, cv);
  };
  if (out->dtype.isFloat()) run(double{});
  else run(uint64_t{});
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- einsum
// Every dimension of every operand is labelled: letters by themselves, ellipsis dims by their
// right-aligned position among the broadcast ellipsis dims. The result loops over the output
// labels and sums over the rest; a size-1 dim broadcasts, a repeated label takes the diagonal.
struct EinsumTerm {
  std::string letters;
  int ellipsisAt = -1;
};

Result<EinsumTerm> parseEinsumTerm(const Call& call, const std::string& s) {
  EinsumTerm t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "...") == 0) {
      if (t.ellipsisAt >= 0) return evalError(call, fmt::format("more than one ellipsis in \"{}\"", s));
      t.ellipsisAt = int(t.letters.size());
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t.letters += s[i];
    } else if (s[i] != ' ') {
      return evalError(call, fmt::format("invalid character '{}' in subscripts", s[i]));
    }
  }
  return t;
}

struct EinsumPlan {
  std::vector<int64_t> extent;                // per label
  std::vector<std::vector<int64_t>> strides;  // [operand][label] element strides (0: not used or broadcast)
  std::vector<int> outLabels, sumLabels;
};

// Label ids: 0..ne-1 for the ellipsis dims, then one per distinct letter.
Result<EinsumPlan> planEinsum(const Call& call, const std::vector<NDArrayRef>& ops, const std::string& subs) {
  std::string lhs = subs, rhs;
  bool explicitOut = subs.find("->") != std::string::npos;
  if (explicitOut) lhs = subs.substr(0, subs.find("->")), rhs = subs.substr(subs.find("->") + 2);
  std::vector<EinsumTerm> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    RLX_TRY(t, parseEinsumTerm(call, lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    terms.push_back(t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ops.size()) return evalError(call, fmt::format("subscripts name {} operands but {} were given", terms.size(), ops.size()));
  int64_t ne = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    int64_t extra = int64_t(ops[i]->shape.size()) - int64_t(terms[i].letters.size());
    if (extra < 0 || (terms[i].ellipsisAt < 0 && extra != 0))
      return evalError(call, fmt::format("operand {} has {} dimensions but its subscript has {} letters", i, ops[i]->shape.size(), terms[i].letters.size()));
    ne = std::max(ne, extra);
  }
  std::map<char, int> letterId;
  std::map<char, int> count;
  for (auto& t : terms)
    for (char ch : t.letters) {
      if (!letterId.count(ch)) letterId[ch] = int(ne + int64_t(letterId.size()));
      count[ch]++;
    }
  EinsumPlan plan;
  size_t nLabels = size_t(ne) + letterId.size();
  plan.extent.assign(nLabels, 1);
  plan.strides.assign(ops.size(), std::vector<int64_t>(nLabels, 0));
  for (size_t i = 0; i < ops.size(); ++i) {
    const Shape& shape = ops[i]->shape;
    Shape st = stridesOf(shape);
    int64_t extra = int64_t(shape.size()) - int64_t(terms[i].letters.size());
    for (size_t d = 0, li = 0; d < shape.size(); ++d) {
      int label;
      bool inEllipsis = terms[i].ellipsisAt >= 0 && int64_t(d) >= terms[i].ellipsisAt && int64_t(d) < terms[i].ellipsisAt + extra;
      if (inEllipsis) label = int(ne - extra + (int64_t(d) - terms[i].ellipsisAt));
      else label = letterId[terms[i].letters[li++]];
      int64_t& ext = plan.extent[size_t(label)];
      if (shape[d] != 1 && ext != 1 && shape[d] != ext)
        return evalError(call, fmt::format("dimension {} of operand {} has extent {} but its label has extent {}", d, i, shape[d], ext));
      if (shape[d] != 1) ext = shape[d];
      if (shape[d] != 1) plan.strides[i][size_t(label)] += st[d];
    }
  }
  std::vector<bool> inOut(nLabels, false);
  if (explicitOut) {
    RLX_TRY(out, parseEinsumTerm(call, rhs));
    for (size_t k = 0; k <= out.letters.size(); ++k) {
      if (int(k) == out.ellipsisAt)
        for (int e = 0; e < ne; ++e) plan.outLabels.push_back(e);
      if (k == out.letters.size()) break;
      if (!letterId.count(out.letters[k])) return evalError(call, fmt::format("output subscript '{}' does not appear in the inputs", out.letters[k]));
      plan.outLabels.push_back(letterId[out.letters[k]]);
    }
  } else {
    for (int e = 0; e < ne; ++e) plan.outLabels.push_back(e);
    for (auto& [ch, n] : count)
      if (n == 1) plan.outLabels.push_back(letterId[ch]);
  }
  for (int l : plan.outLabels) inOut[size_t(l)] = true;
  for (size_t l = 0; l < nLabels; ++l)
    if (!inOut[l]) plan.sumLabels.push_back(int(l));
  return plan;
}

Result<Value> evalEinsum(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(ops0, tensorTupleValue(call, args, 0, "operands"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY(plan, planEinsum(call, ops0, attrString(call, "subscripts")));
  Shape outShape, sumShape;
  for (int l : plan.outLabels) outShape.push_back(plan.extent[size_t(l)]);
  for (int l : plan.sumLabels) sumShape.push_back(plan.extent[size_t(l)]);
  if (numelOf(outShape) != out->numel()) return evalError(call, "the result shape does not match the operands");
  auto run = [&](auto tag) {
    using T = decltype(tag);
    std::vector<std::vector<T>> vals;
    for (auto& t : ops0) vals.push_back(loadAs<T>(*castIfNeeded(t, out->dtype)));
    std::vector<T> res(size_t(out->numel()), T(0));
    std::vector<int64_t> label(plan.extent.size(), 0);
    forEachIndex(outShape, [&](const Shape& oi, int64_t flat) {
      for (size_t k = 0; k < oi.size(); ++k) label[size_t(plan.outLabels[k])] = oi[k];
      T acc = T(0);
      auto term = [&](const Shape& si, int64_t) {
        for (size_t k = 0; k < si.size(); ++k) label[size_t(plan.sumLabels[k])] = si[k];
        T prod = T(1);
        for (size_t i = 0; i < vals.size(); ++i) {
          int64_t off = 0;
          for (size_t l = 0; l < label.size(); ++l) off += label[l] * plan.strides[i][l];
          prod = prod * vals[i][size_t(off)];
        }
        acc += prod;
      };
      forEachIndex(sumShape, term);
      res[size_t(flat)] = acc;
    });
    storeAs(*out, res);
  };
  if (out->dtype.isFloat()) run(double{});
  else run(uint64_t{});
  return Value::ofTensor(out);
}

}  // namespace

void registerLinalgEvals() {
  registerEval("relax.matmul", evalMatmul);
  registerEval("relax.outer", evalOuter);
  registerEval("relax.einsum", evalEinsum);
}

}  // namespace rlx
