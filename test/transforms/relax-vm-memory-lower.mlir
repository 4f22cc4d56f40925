// RUN: relax-opt %s -p relax-vm-memory-lower | filecheck %s

tir.prim_func @k(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
}

// Planned storages and tensors become VM builtins with their sizes, shapes and dtypes;
// a tensor sharing no storage is allocated directly.
// CHECK-LABEL: relax.func @main
// CHECK-NEXT:    %[[S:.*]] = vm.alloc_storage [n * 4] {dtype = "uint8"} : !relax.object
// CHECK-NEXT:    %a = vm.alloc_tensor %[[S]] [0] shape [n] {dtype = "float32"} : !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.call_dps @k(%x, %a)
// CHECK-NEXT:    %b = vm.alloc_tensor_direct shape [n] {dtype = "float64"} : !relax.tensor<[n], f64>
// CHECK-NEXT:    vm.kill %[[S]]
relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %s = relax.memory.alloc_storage [n * 4] : !relax.object
  %a = relax.memory.alloc_tensor %s [0] : !relax.tensor<[n], f32>
  relax.call_dps @k(%x, %a) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  %b = relax.builtin.alloc_tensor : !relax.tensor<[n], f64>
  relax.memory.kill_storage %s : !relax.object
  relax.return %x : !relax.tensor<[n], f32>
}
