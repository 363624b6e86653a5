// Sampling ops: sort, argsort, topk, multinomial_from_uniform, and the top-p/top-k helpers built
// from TIR kernels (stated in TVMScript, as they appear in TVM v0.23's exported modules) plus a TE
// filter kernel, exactly what TVM's nn frontend emits.
#include "frontend/nn/op.h"
#include "frontend/nn/op_util.h"

namespace rlx::nn::op {

using namespace detail;

namespace {

// get_index_from_sorted(cumsum_sorted, indices, renorm_prob, usample, sample_indices) -> output_index:
// for each sampled row, the first sorted index whose renormalized cumulative sum exceeds usample.
const char* kIndexFromSorted = R"TVM(
@T.prim_func(private=True)
def get_index_from_sorted(A: T.handle, B: T.handle, C: T.handle, D: T.handle, E: T.handle, F: T.handle):
    batch, vocab_size = T.int64(is_size_var=True), T.int64(is_size_var=True)
    cumsum_sorted = T.match_buffer(A, (batch, vocab_size))
    indices = T.match_buffer(B, (batch, vocab_size), "int32")
    renorm_prob = T.match_buffer(C, (batch, 1))
    out_batch = T.int64(is_size_var=True)
    usample = T.match_buffer(D, (out_batch, 1))
    sample_indices = T.match_buffer(E, (out_batch, 1), "int64")
    output_index = T.match_buffer(F, (out_batch, 1), "int32")
    for ax0, ax1 in T.grid(out_batch, vocab_size):
        with T.block("T_get_index_from_sorted"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(usample[v_ax0, T.int64(0)], cumsum_sorted[sample_indices[v_ax0, T.int64(0)], v_ax1 - T.int64(1):v_ax1 - T.int64(1) + T.int64(2)], sample_indices[v_ax0, T.int64(0)], renorm_prob[sample_indices[v_ax0, T.int64(0)], 0], indices[sample_indices[v_ax0, T.int64(0)], T.min(T.int64(0), v_ax1):T.min(T.int64(0), v_ax1) + (T.max(T.int64(0), v_ax1) + T.int64(1) - T.min(T.int64(0), v_ax1))])
            T.writes(output_index[v_ax0, 0])
            if usample[v_ax0, T.int64(0)] < cumsum_sorted[sample_indices[v_ax0, T.int64(0)], v_ax1] / renorm_prob[sample_indices[v_ax0, T.int64(0)], 0] or v_ax1 + T.int64(1) == vocab_size:
                if v_ax1 == T.int64(0):
                    output_index[v_ax0, 0] = indices[sample_indices[v_ax0, T.int64(0)], 0]
                else:
                    if usample[v_ax0, T.int64(0)] >= cumsum_sorted[sample_indices[v_ax0, T.int64(0)], v_ax1 - T.int64(1)] / renorm_prob[sample_indices[v_ax0, T.int64(0)], 0]:
                        output_index[v_ax0, 0] = indices[sample_indices[v_ax0, T.int64(0)], v_ax1]
)TVM";

// get_renorm_cutoff(sorted_prob, cumsum_sorted, top_p, top_k) -> cutoff: the smallest probability kept.
const char* kRenormCutoff = R"TVM(
@T.prim_func(private=True)
def get_renorm_cutoff(A: T.handle, B: T.handle, C: T.handle, D: T.handle, E: T.handle):
    batch, vocab_size = T.int64(), T.int64()
    sorted_prob = T.match_buffer(A, (batch, vocab_size))
    cumsum_sorted = T.match_buffer(B, (batch, vocab_size))
    top_p = T.match_buffer(C, (batch, 1))
    top_k = T.match_buffer(D, (batch, 1), "int32")
    cutoff = T.match_buffer(E, (batch, 1))
    for ax0, ax1 in T.grid(batch, vocab_size):
        with T.block("T_get_renorm_cutoff"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(cumsum_sorted[v_ax0, T.min(T.min(T.int64(0), v_ax1), v_ax1 + T.int64(1)):T.min(T.min(T.int64(0), v_ax1), v_ax1 + T.int64(1)) + (T.max(T.max(T.int64(0), v_ax1), v_ax1 + T.int64(1)) + T.int64(1) - T.min(T.min(T.int64(0), v_ax1), v_ax1 + T.int64(1)))], top_p[v_ax0, 0], top_k[v_ax0, 0], sorted_prob[v_ax0, T.min(T.min(T.int64(0), v_ax1), v_ax1 + T.int64(1)):T.min(T.min(T.int64(0), v_ax1), v_ax1 + T.int64(1)) + (T.max(T.max(T.int64(0), v_ax1), v_ax1 + T.int64(1)) + T.int64(1) - T.min(T.min(T.int64(0), v_ax1), v_ax1 + T.int64(1)))])
            T.writes(cutoff[v_ax0, 0])
            if (cumsum_sorted[v_ax0, 0] < top_p[v_ax0, 0] and top_k[v_ax0, 0] > 1) == T.bool(False):
                cutoff[v_ax0, 0] = sorted_prob[v_ax0, 0]
            else:
                if (cumsum_sorted[v_ax0, v_ax1] < top_p[v_ax0, 0] and v_ax1 + T.int64(1) < T.Cast("int64", top_k[v_ax0, 0])) == T.bool(True):
                    if v_ax1 + T.int64(1) == vocab_size:
                        cutoff[v_ax0, 0] = sorted_prob[v_ax0, v_ax1]
                    else:
                        if (cumsum_sorted[v_ax0, v_ax1 + T.int64(1)] < top_p[v_ax0, 0] and v_ax1 + T.int64(1) + T.int64(1) < T.Cast("int64", top_k[v_ax0, 0])) == T.bool(False):
                            cutoff[v_ax0, 0] = sorted_prob[v_ax0, v_ax1 + T.int64(1)]
)TVM";

// get_renorm_prob(cumsum_sorted, top_p, top_k) -> renorm_prob: the cumulative mass kept per row.
const char* kRenormProb = R"TVM(
@T.prim_func(private=True)
def get_renorm_prob(A: T.handle, B: T.handle, C: T.handle, D: T.handle):
    batch, vocab_size = T.int64(is_size_var=True), T.int64(is_size_var=True)
    cumsum_sorted = T.match_buffer(A, (batch, vocab_size))
    top_p = T.match_buffer(B, (batch, 1))
    top_k = T.match_buffer(C, (batch, 1), "int32")
    renorm_prob = T.match_buffer(D, (batch, 1))
    for ax0, ax1 in T.grid(batch, vocab_size):
        with T.block("T_get_renorm_prob"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(cumsum_sorted[v_ax0, T.min(T.min(T.int64(0), v_ax1), v_ax1 + T.int64(1)):T.min(T.min(T.int64(0), v_ax1), v_ax1 + T.int64(1)) + (T.max(T.max(T.int64(0), v_ax1), v_ax1 + T.int64(1)) + T.int64(1) - T.min(T.min(T.int64(0), v_ax1), v_ax1 + T.int64(1)))], top_p[v_ax0, 0], top_k[v_ax0, 0])
            T.writes(renorm_prob[v_ax0, 0])
            if not (cumsum_sorted[v_ax0, 0] < top_p[v_ax0, 0] and top_k[v_ax0, 0] > 1):
                renorm_prob[v_ax0, 0] = cumsum_sorted[v_ax0, 0]
            else:
                if cumsum_sorted[v_ax0, v_ax1] < top_p[v_ax0, 0] and v_ax1 + T.int64(1) < T.Cast("int64", top_k[v_ax0, 0]):
                    if v_ax1 + T.int64(1) == vocab_size:
                        renorm_prob[v_ax0, 0] = cumsum_sorted[v_ax0, v_ax1]
                    else:
                        if not (cumsum_sorted[v_ax0, v_ax1 + T.int64(1)] < top_p[v_ax0, 0] and v_ax1 + T.int64(1) + T.int64(1) < T.Cast("int64", top_k[v_ax0, 0])):
                            renorm_prob[v_ax0, 0] = cumsum_sorted[v_ax0, v_ax1 + T.int64(1)]

)TVM";

}  // namespace

Tensor sort(const Tensor& x, int64_t axis, bool descending, const std::string& name) {
  return wrap(call("sort", {ex(x)}, {{"axis", build::i(axis)}, {"descending", build::b(descending)}}), name);
}

Tensor argsort(const Tensor& x, int64_t axis, bool descending, DType dtype, const std::string& name) {
  return wrap(call("argsort", {ex(x)}, {{"axis", build::i(axis)}, {"descending", build::b(descending)}, {"dtype", build::s(dtype.str())}}), name);
}

std::vector<Tensor> topk(const Tensor& x, int64_t k, int64_t axis, const std::string& retType, bool largest, DType dtype, const std::string& name) {
  Expr c = call("topk", {ex(x)}, {{"k", build::i(k)}, {"axis", build::i(axis)}, {"ret_type", build::s(retType)}, {"largest", build::b(largest)}, {"dtype", build::s(dtype.str())}});
  if (retType == "both") return wrapTuple(c, name);
  return {wrap(c, name)};
}

Tensor multinomialFromUniform(const Tensor& prob, const Tensor& uniformSample, const Tensor& sampleIndices, DType dtype, const std::string& name) {
  return wrap(call("multinomial_from_uniform", {ex(prob), ex(uniformSample), ex(sampleIndices)}, {{"dtype", build::s(dtype.str())}}), name);
}

Tensor renormalizeTopPTopKProb(const Tensor& prob, const Tensor& sortedProb, const Tensor& topP, const Tensor& topK) {
  Tensor cumsumSorted = cumsum(sortedProb, {.axis = 1});
  Tensor cutoff = tensorIrOp(kRenormCutoff, "get_renorm_cutoff", {sortedProb, cumsumSorted, topP, topK}, {Tensor::placeholder({prob.dim(0), 1}, prob.dtype())})[0];
  // filter_with_top_p_top_k: probabilities below the row's cutoff become 0.
  auto filter = [](te::KernelBuilder& kb, const std::vector<te::Tensor>& in) -> std::vector<te::Tensor> {
    const te::Tensor& p = in[0];
    const te::Tensor& cut = in[1];
    return {kb.compute(
        "filter_with_top_p_top_k", p.shape(), p.dtype(),
        [&](const te::Indices& i) {
          PrimExpr keep = te::bin(NodeKind::LE, cut({i[0], intImm(0)}), p(i));
          return PrimExpr(make<Select>(keep, p(i), te::constant(0.0, p.dtype())));
        },
        std::vector<std::string>{"i", "j"})};
  };
  Tensor filtered = tensorExprOp(filter, "filter_with_top_p_top_k", {prob, cutoff})[0];
  return filtered / sum(filtered, Axes{1}, true);
}

Tensor sampleTopPTopKFromSortedProb(const Tensor& sortedProb, const Tensor& sortedIndex, const Tensor& topP, const Tensor& topK, const Tensor& uniformSample,
                                    const Tensor& sampleIndices) {
  Tensor cumsumSorted = cumsum(sortedProb, {.axis = 1});
  Tensor renorm = tensorIrOp(kRenormProb, "get_renorm_prob", {cumsumSorted, topP, topK}, {Tensor::placeholder({sortedProb.dim(0), 1}, sortedProb.dtype())})[0];
  return tensorIrOp(kIndexFromSorted, "get_index_from_sorted", {cumsumSorted, sortedIndex, renorm, uniformSample, sampleIndices},
                    {Tensor::placeholder({sampleIndices.dim(0), 1}, sortedIndex.dtype())})[0];
}

}  // namespace rlx::nn::op
