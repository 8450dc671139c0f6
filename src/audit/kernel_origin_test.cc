#include "audit/kernel_origin.h"

#include <gtest/gtest.h>

namespace d2k::audit {
namespace {

TEST(KernelOriginTest, RecognisesLibraryKernels) {
  for (const char* name : {
           "nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_TNT",
           "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
           "execute_segment_k_off_kernel__5x_cublas",
           "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn",
           "void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float>()",
           "cudnn::engines_precompiled::nchwToNhwcKernel",
           "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nn_align1>("
           "cutlass_80_simt_sgemm_128x64_8x5_nn_align1::Params)",
           "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, "
           "false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
           "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, "
           "float> >(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
           "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, "
           "float>, float, float)",
       }) {
    EXPECT_EQ(kernel_origin(name), KernelOrigin::library) << name;
  }
}

TEST(KernelOriginTest, SplitsAtenKernelsIntoGlueAndCompute) {
  EXPECT_EQ(kernel_origin("void at::native::vectorized_elementwise_kernel<4, "
                          "at::native::FillFunctor<c10::Half>, at::detail::Array<char*, 1> >"),
            KernelOrigin::aten_glue);
  EXPECT_EQ(kernel_origin("void at::native::unrolled_elementwise_kernel<at::native::"
                          "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}>"),
            KernelOrigin::aten_glue);
  EXPECT_EQ(kernel_origin("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                          "at::native::NormTwoOps<float, float, float> > >"),
            KernelOrigin::aten_compute);
  EXPECT_EQ(kernel_origin("void at::native::vectorized_elementwise_kernel<4, "
                          "at::native::AUnaryFunctor<c10::Half, c10::Half, c10::Half, "
                          "at::native::binary_internal::MulFunctor<float> > >"),
            KernelOrigin::aten_compute);
  EXPECT_EQ(kernel_origin("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits>"),
            KernelOrigin::aten_compute);
}

TEST(KernelOriginTest, EverythingElseIsTheCandidatesOwn) {
  EXPECT_EQ(kernel_origin("newton_schulz_step_kernel"), KernelOrigin::custom);  // Triton
  EXPECT_EQ(kernel_origin("void gram_kernel<128, 64>(const __half*, __half*, int)"),
            KernelOrigin::custom);
  // A custom gemm that does not follow the library naming stays custom.
  EXPECT_EQ(kernel_origin("my_gemm_kernel"), KernelOrigin::custom);
  // So does a candidate's own CUTLASS instantiation.
  EXPECT_EQ(kernel_origin("void cutlass::device_kernel<MyGemmKernel>(MyGemmKernel::Params)"),
            KernelOrigin::custom);
  EXPECT_EQ(to_string(KernelOrigin::aten_glue), "aten_glue");
}

}  // namespace
}  // namespace d2k::audit
