// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// RUN: relax-opt %s --split-input-file -p relax-legalize-ops | filecheck %s --check-prefix=LEGAL
// runtime_attrs: an operator whose attributes come from integer tensors at run time.
// Its type is what is known without the values (rank and element type): the rank of a
// reduction without keepdims drops one axis per entry of the axes, a 1-D tensor of
// unknown length leaves the rank unknown. It always runs on the safety net.

// CHECK-LABEL: relax.func @reductions
// CHECK-NEXT:    %0 = relax.runtime_attrs %x, %axes {op = "relax.sum", names = ["axis"]} : (!relax.tensor<[n, 4, 3], f32>, !relax.tensor<[2], i64>) -> !relax.tensor<ndim=1, f32>
// CHECK-NEXT:    %1 = relax.runtime_attrs %x, %axes {op = "relax.max", names = ["axis"], attrs = {keepdims = true}} : (!relax.tensor<[n, 4, 3], f32>, !relax.tensor<[2], i64>) -> !relax.tensor<ndim=3, f32>
// CHECK-NEXT:    %2 = relax.runtime_attrs %x, %some {op = "relax.mean", names = ["axis"]} : (!relax.tensor<[n, 4, 3], f32>, !relax.tensor<[k], i32>) -> !relax.tensor<*, f32>
// CHECK-NEXT:    %3 = relax.match_shape %1 [n, 1, 1] : (!relax.tensor<ndim=3, f32>) -> !relax.tensor<[n, 1, 1], f32>
// LEGAL-LABEL: relax.func @reductions
// LEGAL-NEXT:    %0 = relax.call_packed "relax.op.runtime_attrs"(%x, %axes) {pure, op_attrs = {op = "relax.sum", names = ["axis"]}} : (!relax.tensor<[n, 4, 3], f32>, !relax.tensor<[2], i64>) -> !relax.tensor<ndim=1, f32>
relax.func @reductions(%x: !relax.tensor<[n, 4, 3], f32>, %axes: !relax.tensor<[2], i64>, %some: !relax.tensor<[k], i32>) -> !relax.tensor<ndim=1, f32> {
  %0 = relax.runtime_attrs %x, %axes {op = "relax.sum", names = ["axis"]} : (!relax.tensor<[n, 4, 3], f32>, !relax.tensor<[2], i64>)
  %1 = relax.runtime_attrs %x, %axes {op = "relax.max", names = ["axis"], attrs = {keepdims = true}} : (!relax.tensor<[n, 4, 3], f32>, !relax.tensor<[2], i64>)
  %2 = relax.runtime_attrs %x, %some {op = "relax.mean", names = ["axis"]} : (!relax.tensor<[n, 4, 3], f32>, !relax.tensor<[k], i32>)
  %3 = relax.match_shape %1 [n, 1, 1] : (!relax.tensor<ndim=3, f32>)
  relax.return %0 : !relax.tensor<ndim=1, f32>
}

// -----

// Integer attributes from 0-d tensors, several attributes at once, tuple results.
// CHECK-LABEL: relax.func @attributes
// CHECK-NEXT:    %0 = relax.runtime_attrs %x, %k {op = "relax.triu", names = ["k"]} : (!relax.tensor<[n, m], f32>, !relax.tensor<[], i64>) -> !relax.tensor<ndim=2, f32>
// CHECK-NEXT:    %1 = relax.runtime_attrs %x, %b, %e {op = "relax.strided_slice", names = ["begin", "end"], attrs = {axes = array<i64: 0, 1>}} : (!relax.tensor<[n, m], f32>, !relax.tensor<[2], i64>, !relax.tensor<[2], i64>) -> !relax.tensor<ndim=2, f32>
// CHECK-NEXT:    %2 = relax.runtime_attrs %x, %b {op = "relax.split", names = ["indices_or_sections"], attrs = {axis = 1 : i64}} : (!relax.tensor<[n, m], f32>, !relax.tensor<[2], i64>) -> !relax.tuple<!relax.tensor<ndim=2, f32>, !relax.tensor<ndim=2, f32>, !relax.tensor<ndim=2, f32>>
// CHECK-NEXT:    %3 = relax.runtime_attrs %x, %b {op = "relax.expand_dims", names = ["axis"]} : (!relax.tensor<[n, m], f32>, !relax.tensor<[2], i64>) -> !relax.tensor<ndim=4, f32>
relax.func @attributes(%x: !relax.tensor<[n, m], f32>, %k: !relax.tensor<[], i64>, %b: !relax.tensor<[2], i64>, %e: !relax.tensor<[2], i64>) -> !relax.tensor<ndim=2, f32> {
  %0 = relax.runtime_attrs %x, %k {op = "relax.triu", names = ["k"]} : (!relax.tensor<[n, m], f32>, !relax.tensor<[], i64>)
  %1 = relax.runtime_attrs %x, %b, %e {op = "relax.strided_slice", names = ["begin", "end"], attrs = {axes = array<i64: 0, 1>}} : (!relax.tensor<[n, m], f32>, !relax.tensor<[2], i64>, !relax.tensor<[2], i64>)
  %2 = relax.runtime_attrs %x, %b {op = "relax.split", names = ["indices_or_sections"], attrs = {axis = 1 : i64}} : (!relax.tensor<[n, m], f32>, !relax.tensor<[2], i64>)
  %3 = relax.runtime_attrs %x, %b {op = "relax.expand_dims", names = ["axis"]} : (!relax.tensor<[n, m], f32>, !relax.tensor<[2], i64>)
  relax.return %0 : !relax.tensor<ndim=2, f32>
}

// -----

// tensor_to_shape: a shape value of a tensor's entries; match_shape names them, so the
// operators that use the shape compile to kernels of symbolic shape.
// CHECK-LABEL: relax.func @shape
// CHECK-NEXT:    %s = relax.tensor_to_shape %t : (!relax.tensor<[2], i64>) -> !relax.shape<ndim=2>
// CHECK-NEXT:    %m = relax.match_shape %s [a, b] : (!relax.shape<ndim=2>) -> !relax.shape<[a, b]>
// CHECK-NEXT:    %y = relax.reshape %x, %m : (!relax.tensor<[n, 4], f32>, !relax.shape<[a, b]>) -> !relax.tensor<[a, b], f32>
// CHECK-NEXT:    %u = relax.tensor_to_shape %v : (!relax.tensor<ndim=1, i32>) -> !relax.shape<*>
// LEGAL-LABEL: relax.func @shape
// LEGAL-NEXT:    %s = relax.call_packed "relax.op.tensor_to_shape"(%t) {pure} : (!relax.tensor<[2], i64>) -> !relax.shape<ndim=2>
// LEGAL-NEXT:    %m = relax.match_shape %s [a, b] : (!relax.shape<ndim=2>) -> !relax.shape<[a, b]>
// LEGAL-NEXT:    %y = relax.call_tir @reshape(%x) : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[a, b], f32>
relax.func @shape(%x: !relax.tensor<[n, 4], f32>, %t: !relax.tensor<[2], i64>, %v: !relax.tensor<ndim=1, i32>) -> !relax.tensor<ndim=2, f32> {
  %s = relax.tensor_to_shape %t : (!relax.tensor<[2], i64>)
  %m = relax.match_shape %s [a, b] : (!relax.shape<ndim=2>)
  %y = relax.reshape %x, %m : (!relax.tensor<[n, 4], f32>, !relax.shape<[a, b]>)
  %u = relax.tensor_to_shape %v : (!relax.tensor<ndim=1, i32>)
  relax.return %y : !relax.tensor<[a, b], f32>
}
