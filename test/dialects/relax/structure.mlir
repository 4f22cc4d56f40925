// RUN: %roundtrip
// RUN: %generic-roundtrip
// Every structural op of the relax dialect, in the syntax of the contract examples.

// CHECK-LABEL: relax.func @dataflow_and_match_shape
// CHECK-NEXT:    %gv0 = relax.dataflow -> !relax.tensor<[k * m], f32> {
// CHECK-NEXT:      %lv0 = relax.match_shape %w [k, m] : (!relax.tensor<ndim=2, f32>) -> !relax.tensor<[k, m], f32>
// CHECK-NEXT:      %lv1 = relax.call_packed "flatten"(%lv0) {pure} : (!relax.tensor<[k, m], f32>) -> !relax.tensor<[k * m], f32>
// CHECK-NEXT:      relax.output %lv1 : !relax.tensor<[k * m], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    relax.call_packed "custom_inplace_update"(%gv0) : (!relax.tensor<[k * m], f32>) -> ()
// CHECK-NEXT:    relax.return %gv0 : !relax.tensor<[k * m], f32>
relax.func @dataflow_and_match_shape(%x: !relax.tensor<[n, k], f32>, %w: !relax.tensor<ndim=2, f32>) -> !relax.tensor<ndim=1, f32> {
  %gv0 = relax.dataflow -> !relax.tensor<[k * m], f32> {
    %lv0 = relax.match_shape %w [k, m] : (!relax.tensor<ndim=2, f32>) -> !relax.tensor<[k, m], f32>
    %lv1 = relax.call_packed "flatten"(%lv0) {pure} : (!relax.tensor<[k, m], f32>) -> !relax.tensor<[k * m], f32>
    relax.output %lv1 : !relax.tensor<[k * m], f32>
  }
  relax.call_packed "custom_inplace_update"(%gv0) : (!relax.tensor<[k * m], f32>) -> ()
  relax.return %gv0 : !relax.tensor<[k * m], f32>
}

// -----

// Several outputs; an empty dataflow region; match_shape of a shape value with the result type omitted.
// CHECK-LABEL: relax.func @multiple_outputs
// CHECK-NEXT:    %a, %b = relax.dataflow -> (!relax.shape<[n, 4]>, !relax.shape<[n, m]>) {
// CHECK-NEXT:      %s = relax.shape [n, 4] : !relax.shape<[n, 4]>
// CHECK-NEXT:      %t = relax.shape_of %x : (!relax.tensor<ndim=2, f32>) -> !relax.shape<ndim=2>
// CHECK-NEXT:      %u = relax.match_shape %t [n, m] : (!relax.shape<ndim=2>) -> !relax.shape<[n, m]>
// CHECK-NEXT:      relax.output %s, %u : !relax.shape<[n, 4]>, !relax.shape<[n, m]>
// CHECK-NEXT:    }
// CHECK-NEXT:    relax.dataflow {
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
relax.func @multiple_outputs(%x: !relax.tensor<ndim=2, f32>, %y: !relax.tensor<[n], f32>) -> !relax.shape<ndim=2> {
  %a, %b = relax.dataflow -> (!relax.shape<[n, 4]>, !relax.shape<[n, m]>) {
    %s = relax.shape [n, 4]
    %t = relax.shape_of %x : (!relax.tensor<ndim=2, f32>)
    %u = relax.match_shape %t [n, m] : (!relax.shape<ndim=2>)
    relax.output %s, %u : !relax.shape<[n, 4]>, !relax.shape<[n, m]>
  }
  relax.dataflow {
    relax.output
  }
  relax.return %b : !relax.shape<[n, m]>
}

// -----

// CHECK-LABEL: tir.prim_func @tir_exp
// CHECK-LABEL: relax.func @call_tir
// CHECK-NEXT:    %y = relax.call_tir @tir_exp(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
// CHECK-NEXT:    %z = relax.call_tir @tir_dyn(%x) sym [m] : (!relax.tensor<[n], f32>) -> !relax.tensor<[floordiv(m, 2) * 2], f32>
tir.prim_func @tir_exp(%X: !tir.buffer<[n], f32>, %Y: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %v = tir.load %X[i] : f32
    %e = math.exp %v : f32
    tir.store %Y[i], %e : f32
  }
}
tir.prim_func @tir_dyn(%X: !tir.buffer<[n], f32>, %Y: !tir.buffer<[2 * floordiv(m, 2)], f32>) sym [m] {
}
relax.func @call_tir(%x: !relax.tensor<[n], f32>, %w: !relax.tensor<[m], f32>) -> !relax.tensor<[n], f32> {
  %y = relax.call_tir @tir_exp(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %z = relax.call_tir @tir_dyn(%x) sym [m] : (!relax.tensor<[n], f32>) -> !relax.tensor<[2 * floordiv(m, 2)], f32>
  relax.return %y : !relax.tensor<[n], f32>
}

// -----

// CHECK-LABEL: relax.func @calls_and_tuples
// CHECK-NEXT:    %t = relax.tuple %x, %s : (!relax.tensor<[n], f32>, !relax.shape<[n]>) -> !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>>
// CHECK-NEXT:    %e = relax.get_item %t[1] : (!relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>>) -> !relax.shape<[n]>
// CHECK-NEXT:    %r = relax.call @callee(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
// CHECK-NEXT:    %p = relax.call_packed "my.packed"(%x, %e) : (!relax.tensor<[n], f32>, !relax.shape<[n]>) -> !relax.object
// CHECK-NEXT:    %c = relax.const dense<[1.000000e+00, 2.000000e+00]> : !relax.tensor<[2], f32>
// CHECK-NEXT:    %i = relax.const dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : !relax.tensor<[2, 3], i64>
// CHECK-NEXT:    %z = relax.const dense<0.000000e+00> : !relax.tensor<[4], f16>
relax.func @callee(%a: !relax.tensor<[k], f32>) -> !relax.tensor<[k], f32> {
  relax.return %a : !relax.tensor<[k], f32>
}
relax.func @calls_and_tuples(%x: !relax.tensor<[n], f32>, %s: !relax.shape<[n]>) -> !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>> {
  %t = relax.tuple %x, %s : (!relax.tensor<[n], f32>, !relax.shape<[n]>)
  %e = relax.get_item %t[1] : (!relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>>)
  %r = relax.call @callee(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %p = relax.call_packed "my.packed"(%x, %e) : (!relax.tensor<[n], f32>, !relax.shape<[n]>) -> !relax.object
  %c = relax.const dense<[1.0, 2.0]> : !relax.tensor<[2], f32>
  %i = relax.const dense<[[1, 2, 3], [4, 5, 6]]> : !relax.tensor<[2, 3], i64>
  %z = relax.const dense<0.0> : !relax.tensor<[4], f16>
  relax.return %t : !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>>
}

// -----

// CHECK-LABEL: relax.func private @control_flow
// CHECK-NEXT:    %r, %s = relax.if %c -> (!relax.tensor<[n], f32>, !relax.shape<[n]>) {
// CHECK-NEXT:      relax.yield %x, %sx : !relax.tensor<[n], f32>, !relax.shape<[n]>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %y = relax.call_packed "f"(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
// CHECK-NEXT:      relax.yield %y, %sx : !relax.tensor<[n], f32>, !relax.shape<[n]>
// CHECK-NEXT:    }
// CHECK-NEXT:    relax.if %c {
// CHECK-NEXT:      relax.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      relax.yield
// CHECK-NEXT:    }
relax.func private @control_flow(%c: !relax.tensor<[], i1>, %x: !relax.tensor<[n], f32>, %sx: !relax.shape<[n]>) -> !relax.tensor<[n], f32> {
  %r, %s = relax.if %c -> (!relax.tensor<[n], f32>, !relax.shape<[n]>) {
    relax.yield %x, %sx : !relax.tensor<[n], f32>, !relax.shape<[n]>
  } else {
    %y = relax.call_packed "f"(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    relax.yield %y, %sx : !relax.tensor<[n], f32>, !relax.shape<[n]>
  }
  relax.if %c {
    relax.yield
  } else {
    relax.yield
  }
  relax.return %r : !relax.tensor<[n], f32>
}

// -----

// relax.prim_value: an expression of defined variables as a value (the type may be
// left out: i64); match_shape binds a variable to a prim value computed at run time.
// CHECK-LABEL: relax.func @prim_values
// CHECK-NEXT:    %k = relax.prim_value n * 2 + 1 : !relax.prim<i64, n * 2 + 1>
// CHECK-NEXT:    %c = relax.prim_value -3 : !relax.prim<i32, -3>
// CHECK-NEXT:    %m = relax.match_shape %p [q] : (!relax.prim<i64>) -> !relax.prim<i64, q>
// CHECK-NEXT:    %s = relax.shape [q, n] : !relax.shape<[q, n]>
relax.func @prim_values(%x: !relax.tensor<[n], f32>, %p: !relax.prim<i64>) -> !relax.shape<ndim=2> {
  %k = relax.prim_value 1 + 2 * n
  %c = relax.prim_value -3 : !relax.prim<i32, -3>
  %m = relax.match_shape %p [q] : (!relax.prim<i64>)
  %s = relax.shape [q, n]
  relax.return %s : !relax.shape<[q, n]>
}
