module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.case"(%arg0) ({
      %4 = "stablehlo.constant"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }, {
      %4 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }, {
      %4 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %4 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }, {
      %4 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }, {
      %4 = "stablehlo.constant"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    %2 = "stablehlo.case"(%1) ({
      %4 = "stablehlo.constant"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }, {
      %4 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }, {
      %4 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %4 = "stablehlo.negate"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%4) : (tensor<4xf32>) -> ()
    }, {
      %4 = "stablehlo.cosine"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%4) : (tensor<4xf32>) -> ()
    }, {
      %4 = "stablehlo.sine"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%4) : (tensor<4xf32>) -> ()
    }) : (tensor<i32>) -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}

