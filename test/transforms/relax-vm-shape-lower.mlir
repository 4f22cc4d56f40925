// RUN: relax-opt %s --split-input-file -p relax-vm-shape-lower | filecheck %s

tir.prim_func @k(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
}

// Parameters are checked and their variables stored in the heap; a later occurrence
// is a check; compound expressions are computed by a generated tir shape function
// right after their variables are bound; allocation sizes, shapes, shape values and
// call_dps symbolic arguments then mention only heap slots.
// CHECK-LABEL: tir.prim_func @main_shape0(%H: !tir.buffer<[4], i64>) sym [k, n] {
// CHECK-NEXT:    %0 = tir.index k * n : i64
// CHECK-NEXT:    tir.store %H[2], %0 : i64
// CHECK-NEXT:    %1 = tir.index k * n * 4 : i64
// CHECK-NEXT:    tir.store %H[3], %1 : i64
// CHECK-LABEL: relax.func @main
// CHECK-NEXT:    %shape_heap = vm.alloc_shape_heap 4 : !relax.tensor<[4], i64>
// CHECK-NEXT:    vm.check_tensor %x {ndim = 2 : i64, dtype = "float32", context = "main: parameter 'x'"}
// CHECK-NEXT:    %{{.*}} = vm.match_shape %x, %shape_heap [store h0 "n", store h1 "k"] "main: parameter 'x'"
// CHECK-NEXT:    vm.check_tensor %y {ndim = 1 : i64, dtype = "float32", context = "main: parameter 'y'"}
// CHECK-NEXT:    %{{.*}} = vm.match_shape %y, %shape_heap [check h0 "n"] "main: parameter 'y'"
// CHECK-NEXT:    relax.call_dps @main_shape0(%shape_heap) sym [h1, h0]
// CHECK-NEXT:    %s = vm.make_shape %shape_heap [h2, 2] : !relax.shape<[k * n, 2]>
// CHECK-NEXT:    %[[S:.*]] = vm.alloc_storage [h3] {dtype = "uint8"}
// CHECK-NEXT:    %{{.*}} = vm.alloc_tensor %[[S]] [0] shape [h2] {dtype = "float32"}
relax.func @main(%x: !relax.tensor<[n, k], f32>, %y: !relax.tensor<[n], f32>) -> !relax.shape<ndim=2> {
  %s = relax.shape [n * k, 2]
  %st = vm.alloc_storage [n * k * 4] {dtype = "uint8"} : !relax.object
  %t = vm.alloc_tensor %st [0] shape [n * k] {dtype = "float32"} : !relax.tensor<[n * k], f32>
  relax.return %s : !relax.shape<[n * k, 2]>
}

// -----

// match_shape binds new variables (stores) and checks known ones; a pattern dimension
// that is an expression is checked after its shape function ran.
// CHECK-LABEL: tir.prim_func @main_shape0(%H: !tir.buffer<[3], i64>) sym [m] {
// CHECK-NEXT:    %0 = tir.index m * 2 : i64
// CHECK-LABEL: relax.func @main
// CHECK:         %[[M:.*]] = vm.match_shape %w, %shape_heap [check h0 "n", store h1 "m", any "m * 2"] "main: match_shape [n, m, m * 2]"
// CHECK-NEXT:    relax.call_dps @main_shape0(%shape_heap) sym [h1]
// CHECK-NEXT:    %y = vm.match_shape %[[M]], %shape_heap [any "n", any "m", check h2 "m * 2"] "main: match_shape [n, m, m * 2]"
// CHECK-NEXT:    relax.return %y : !relax.tensor<[n, m, m * 2], f32>
relax.func @main(%x: !relax.tensor<[n], f32>, %w: !relax.tensor<ndim=3, f32>) -> !relax.tensor<ndim=3, f32> {
  %y = relax.match_shape %w [n, m, m * 2] : (!relax.tensor<ndim=3, f32>)
  relax.return %y : !relax.tensor<[n, m, m * 2], f32>
}

// -----

// A tuple parameter is checked field by field (its fields bind variables too); a
// relax.call result is checked when the declared type claims more than the callee's
// (@g returns ndim=1), not when the callee proves it (@h); a call_packed result is
// always checked, a dimension that is an expression once it is computed.
// CHECK-LABEL: relax.func @main
// CHECK:         vm.check_tuple %t {size = 2 : i64, context = "main: parameter 't'"}
// CHECK-NEXT:    %[[T0:.*]] = relax.get_item %t[0]
// CHECK-NEXT:    vm.check_tensor %[[T0]] {ndim = 2 : i64, dtype = "float32", context = "main: parameter 't'[0]"}
// CHECK-NEXT:    %{{.*}} = vm.match_shape %[[T0]], %shape_heap [check h0 "n", equal 2 "2"] "main: parameter 't'[0]"
// CHECK-NEXT:    %[[T1:.*]] = relax.get_item %t[1]
// CHECK-NEXT:    vm.check_shape %[[T1]] {ndim = 1 : i64, context = "main: parameter 't'[1]"}
// CHECK-NEXT:    %{{.*}} = vm.match_shape %[[T1]], %shape_heap [store h1 "m"] "main: parameter 't'[1]"
// CHECK-NEXT:    relax.call_dps @main_shape0(%shape_heap) sym [h0]
// CHECK-NEXT:    %a = relax.call @g(%x)
// CHECK-NEXT:    vm.check_tensor %a {ndim = 1 : i64, dtype = "float32", context = "main: relax.call @g (%a): result"}
// CHECK-NEXT:    %{{.*}} = vm.match_shape %a, %shape_heap [check h0 "n"] "main: relax.call @g (%a): result"
// CHECK-NEXT:    %b = relax.call @h(%a)
// CHECK-NEXT:    %c = relax.call_packed "my.f"(%b)
// CHECK-NEXT:    vm.check_tensor %c {ndim = 1 : i64, dtype = "float32", context = "main: relax.call_packed 'my.f' (%c): result"}
// CHECK-NEXT:    %{{.*}} = vm.match_shape %c, %shape_heap [check h2 "n * 2"] "main: relax.call_packed 'my.f' (%c): result"
// CHECK-NEXT:    relax.return %b
relax.func @g(%a: !relax.tensor<[k], f32>) -> !relax.tensor<ndim=1, f32> {
  relax.return %a : !relax.tensor<[k], f32>
}
relax.func @h(%a: !relax.tensor<[k], f32>) -> !relax.tensor<[k], f32> {
  relax.return %a : !relax.tensor<[k], f32>
}
relax.func @main(%x: !relax.tensor<[n], f32>, %t: !relax.tuple<!relax.tensor<[n, 2], f32>, !relax.shape<[m]>>) -> !relax.tensor<[n], f32> {
  %a = relax.call @g(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %b = relax.call @h(%a) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %c = relax.call_packed "my.f"(%b) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n * 2], f32>
  relax.return %b : !relax.tensor<[n], f32>
}
