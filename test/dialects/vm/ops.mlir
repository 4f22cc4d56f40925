// RUN: %roundtrip
// RUN: %generic-roundtrip
// The vm dialect: builtins inside a relax function, and an executable-level vm.func.

// CHECK-LABEL: relax.func @builtins
// CHECK-NEXT:    %h = vm.alloc_shape_heap 3 : !relax.tensor<[3], i64>
// CHECK-NEXT:    vm.check_tensor %x {ndim = 2 : i64, dtype = "float32", context = "main: parameter 'x'"} : !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    %{{.*}} = vm.match_shape %x, %h [store h0 "n", equal 4 "4"] "main: parameter 'x'" : !relax.tensor<[n, 4], f32>, !relax.tensor<[3], i64> -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    %y = vm.match_shape %x, %h [check h0 "n", any ""] "main: parameter 'x'" : !relax.tensor<[n, 4], f32>, !relax.tensor<[3], i64> -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    %s = vm.alloc_storage [64] {dtype = "float32"} : !relax.object
// CHECK-NEXT:    %t = vm.alloc_tensor %s [0] shape [h0, 4] {dtype = "float32"} : !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    %sh = vm.make_shape %h [h0, 4] : !relax.shape<[n, 4]>
// CHECK-NEXT:    %sx = vm.shape_of %x : (!relax.tensor<[n, 4], f32>) -> !relax.shape<[n, 4]>
// CHECK-NEXT:    vm.store_shape %sx, %h [0, 1]
// CHECK-NEXT:    %l = vm.load_shape %h [0, 1] : !relax.shape<[n, 4]>
// CHECK-NEXT:    vm.kill %t
relax.func @builtins(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  %h = vm.alloc_shape_heap 3 : !relax.tensor<[3], i64>
  vm.check_tensor %x {ndim = 2 : i64, dtype = "float32", context = "main: parameter 'x'"} : !relax.tensor<[n, 4], f32>
  %0 = vm.match_shape %x, %h [store h0 "n", equal 4 "4"] "main: parameter 'x'" : !relax.tensor<[n, 4], f32>, !relax.tensor<[3], i64> -> !relax.tensor<[n, 4], f32>
  %y = vm.match_shape %x, %h [check h0 "n", any ""] "main: parameter 'x'" : !relax.tensor<[n, 4], f32>, !relax.tensor<[3], i64> -> !relax.tensor<[n, 4], f32>
  %s = vm.alloc_storage [64] {dtype = "float32"} : !relax.object
  %t = vm.alloc_tensor %s [0] shape [h0, 4] {dtype = "float32"} : !relax.tensor<[n, 4], f32>
  %sh = vm.make_shape %h [h0, 4] : !relax.shape<[n, 4]>
  %sx = vm.shape_of %x : (!relax.tensor<[n, 4], f32>) -> !relax.shape<[n, 4]>
  vm.store_shape %sx, %h [0, 1]
  %l = vm.load_shape %h [0, 1] : !relax.shape<[n, 4]>
  vm.kill %t
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

// CHECK-LABEL: vm.func @main(%x, %w) {
// CHECK-NEXT:    %0 = vm.imm 2
// CHECK-NEXT:    %h = vm.call "vm.builtin.alloc_shape_heap"(%0) -> !vm.ref
// CHECK-NEXT:    %c = vm.const "main: parameter 'x'"
// CHECK-NEXT:    %p = vm.const [1 : i64, 2 : i64]
// CHECK-NEXT:    %d = vm.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %f = vm.func_ref "kernel"
// CHECK-NEXT:    vm.call "vm.builtin.print"(%x)
// CHECK-NEXT:    vm.if %x, ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    vm.goto ^bb3(%w)
// CHECK-NEXT:  ^bb2:
// CHECK-NEXT:    vm.goto ^bb3(%x)
// CHECK-NEXT:  ^bb3(%r: !vm.ref):
// CHECK-NEXT:    vm.ret %r
vm.func @main(%x, %w) {
  %0 = vm.imm 2
  %h = vm.call "vm.builtin.alloc_shape_heap"(%0) -> !vm.ref
  %c = vm.const "main: parameter 'x'"
  %p = vm.const [1 : i64, 2 : i64]
  %d = vm.const dense<[1.0, 2.0]> : tensor<2xf32>
  %f = vm.func_ref "kernel"
  vm.call "vm.builtin.print"(%x)
  vm.if %x, ^bb1, ^bb2
^bb1:
  vm.goto ^bb3(%w)
^bb2:
  vm.goto ^bb3(%x)
^bb3(%r: !vm.ref):
  vm.ret %r
}

// -----

// CHECK-LABEL: relax.func @checks
// CHECK-NEXT:    vm.check_shape %s {ndim = 1 : i64, context = "checks: parameter 's'"} : !relax.shape<[n]>
// CHECK-NEXT:    vm.check_tuple %t {size = 1 : i64, context = "checks: parameter 't'"} : !relax.tuple<!relax.object>
relax.func @checks(%s: !relax.shape<[n]>, %t: !relax.tuple<!relax.object>) -> !relax.shape<[n]> {
  vm.check_shape %s {ndim = 1 : i64, context = "checks: parameter 's'"} : !relax.shape<[n]>
  vm.check_tuple %t {size = 1 : i64, context = "checks: parameter 't'"} : !relax.tuple<!relax.object>
  relax.return %s : !relax.shape<[n]>
}
