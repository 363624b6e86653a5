// The kernel cache: a batch compiles each distinct PrimFunc once (results in request order), and
// with the disk cache on, compiled objects and their check messages are stored and read back.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ir/structural_equal.h"
#include "parser/parser.h"
#include "runtime/llvm/disk_cache.h"
#include "runtime/jit.h"

using namespace rlx;

namespace {

// A kernel y = x * factor + offset over n elements; distinct constants give distinct kernels.
PrimFuncRef kernel(double factor, double offset) {
  std::string text = R"(@I.ir_module
class Module:
    @T.prim_func
    def k(x: T.Buffer((T.int64(7),), "float32"), y: T.Buffer((T.int64(7),), "float32")):
        for i in range(T.int64(7)):
            with T.block("y"):
                vi = T.axis.spatial(T.int64(7), i)
                y[vi] = x[vi] * T.float32()" + std::to_string(factor) + ") + T.float32(" + std::to_string(offset) + R"()
)";
  DiagnosticEngine diag;
  auto mod = parseModule(text, "k.relax", diag);
  INFO(diag.render());
  REQUIRE(mod);
  auto f = mod->lookup("k").as<PrimFunc>();
  REQUIRE(f);
  return f;
}

}  // namespace

TEST_CASE("kernel cache: a batch compiles each distinct kernel once, results in request order", "[llvm][kcache]") {
  auto a = kernel(3.25, 0.5), same = kernel(3.25, 0.5), b = kernel(-1.75, 2);
  int64_t before = kernelCompileCount();
  auto results = compileKernels({{a, "a"}, {same, "same"}, {b, "b"}});
  REQUIRE(results.size() == 3);
  for (auto& r : results) REQUIRE(r.ok());
  CHECK(*results[0] == *results[1]);
  CHECK(*results[0] != *results[2]);
  CHECK(kernelCompileCount() == before + 2);
  // Later requests are cache hits.
  auto again = compileKernel(kernel(-1.75, 2), "again");
  REQUIRE(again.ok());
  CHECK(*again == *results[2]);
  CHECK(kernelCompileCount() == before + 2);
  // And the code computes: y = x * -1.75 + 2.
  auto x = make<NDArray>(DataType::float32(), std::vector<int64_t>{7}), y = make<NDArray>(DataType::float32(), std::vector<int64_t>{7});
  for (int64_t i = 0; i < 7; ++i) x->setDouble(i, double(i));
  REQUIRE(runKernel(**again, *b, {TirArg(x), TirArg(y)}).ok());
  for (int64_t i = 0; i < 7; ++i) CHECK(y->getDouble(i) == -1.75 * double(i) + 2);
}

TEST_CASE("kernel cache: compiled objects and their messages go to the disk cache and load back", "[llvm][kcache]") {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / ("rlx_kcache_test_" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  enableKernelDiskCache(dir);
  auto f = kernel(0.125, -4.5);
  auto compiled = compileKernel(f, "disk");
  enableKernelDiskCache("");
  REQUIRE(compiled.ok());
  int objects = 0;
  for (auto& e : fs::directory_iterator(dir + "/kernels")) objects += e.path().extension() == ".o";
  CHECK(objects == 1);
  diskcache::setDirectory(dir);
  auto entry = diskcache::load(diskcache::keyFor(structuralHash(f)));
  diskcache::setDirectory("");
  REQUIRE(entry);
  CHECK(!entry->object.empty());
  CHECK(entry->messages == (*compiled)->messages);
  CHECK(!entry->messages.empty());  // the buffer shape checks
  fs::remove_all(dir);
}
