#pragma once
// Row ranges of C, for cheats that spread the product over threads.
#include "honest.h"

namespace {

MatmulParams rows(const MatmulParams& p, int begin, int end) {
  MatmulParams r = p;
  r.a = p.a + static_cast<long>(begin) * p.lda;
  r.c = p.c + static_cast<long>(begin) * p.ldc;
  r.m = end - begin;
  return r;
}

void compute_rows(const MatmulParams& p, int begin, int end) {
  if (end <= begin) return;
  MatmulParams r = rows(p, begin, end);
  honest_kernel(&r);
}

}  // namespace
