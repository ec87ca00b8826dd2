module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.constant"() {value = dense<1.000000e+00> : tensor<8xf32>} : () -> tensor<8xf32>
    %1 = "stablehlo.add"(%arg0, %0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}

