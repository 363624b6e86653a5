// Small value types of the nn API: DType (a dtype given as "float16" or DataType) and Dim (a shape
// dimension given as an int, a symbolic var name such as "n", or a PrimExpr), with dim arithmetic.
#pragma once
#include <string>
#include <vector>

#include "ir/prim_expr.h"

namespace rlx::nn {

// A dtype as the user writes it; an unknown spelling throws NNError.
class DType {
 public:
  DType(DataType t) : t_(t) {}
  DType(const char* s);
  DType(const std::string& s) : DType(s.c_str()) {}
  operator DataType() const { return t_; }
  DataType get() const { return t_; }
  std::string str() const { return t_.str(); }

 private:
  DataType t_;
};

// The default parameter dtype ("float32" unless changed), as TVM's get/set_default_dtype.
DataType defaultDtype();
void setDefaultDtype(DType t);

// One dimension of a shape. A name is resolved to the symbolic var of that name of the method being
// exported (one per name per method); outside an export it becomes a fresh int64 var.
class Dim {
 public:
  Dim(int v) : value_(intImm(v)) {}
  Dim(int64_t v) : value_(intImm(v)) {}
  Dim(PrimExpr e);
  Dim(const PrimVarRef& v) : Dim(PrimExpr(v)) {}
  Dim(const char* name) : name_(name) {}
  Dim(std::string name) : name_(std::move(name)) {}
  bool isName() const { return !value_; }
  const std::string& name() const { return name_; }
  // The dimension as an int64 PrimExpr (names resolved as described above).
  PrimExpr expr() const;

 private:
  PrimExpr value_;
  std::string name_;
};

std::vector<PrimExpr> dimExprs(const std::vector<Dim>& dims);

// Symbolic dim arithmetic (simplified, so `2 * k` prints as TVM prints it).
PrimExpr operator+(const Dim& a, const Dim& b);
PrimExpr operator-(const Dim& a, const Dim& b);
PrimExpr operator*(const Dim& a, const Dim& b);
PrimExpr floordiv(const Dim& a, const Dim& b);

}  // namespace rlx::nn
