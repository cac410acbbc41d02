/*
 * cuda_graphs.h -- included by cuda.h after the kernel handles: the driver calls libcudart's CUDA
 * graphs use (docs/graphs.md). Declarations as CUDA 13.0's cuda.h spells them; comments minicuda's.
 */
#ifndef MINICUDA_CUDA_GRAPHS_H
#define MINICUDA_CUDA_GRAPHS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Where argument paramIndex of a kernel sits in its parameter buffer and its size in bytes: what a
 * graph node needs to copy a launch's argument values. CUDA_ERROR_INVALID_VALUE for NULL outputs
 * or an index past the last parameter, CUDA_ERROR_INVALID_HANDLE for an unknown kernel. */
CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t* paramOffset, size_t* paramSize);
CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset, size_t* paramSize);

/* --- Prebuilt work: the export table libcudart's executable graphs use (docs/graphs.md) --- */

/* Work recorded for one channel of a context: the pushbuffer methods and launch data of some
 * stream-ordered calls, kept in device-visible system memory, in pieces that can each be
 * submitted as GPFIFO entries pointing at them. */
typedef struct CUprebuilt_st* CUprebuilt;

typedef struct CUetblMinicudaPrebuilt_st {
  size_t size; /* sizeof(CUetblMinicudaPrebuilt) */
  /* Starts recording, on the calling thread, for hStream's channel: until RecordEnd, what that
   * thread's kernel launches, copies and memsets on the channel would submit is written into the
   * recording's memory instead, and nothing is submitted or ordered. A call whose work needs the
   * host at the time it runs (a copy staged through the CPU, managed memory, host functions,
   * events, waits, cooperative launches) does nothing and fails with
   * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED. A thread that records already:
   * CUDA_ERROR_ILLEGAL_STATE. */
  CUresult (*RecordBegin)(CUprebuilt* pPrebuilt, CUstream hStream);
  /* Closes the piece being recorded: *pPiece = its index (0, 1, ...). An empty piece is allowed. */
  CUresult (*RecordPiece)(CUprebuilt prebuilt, unsigned* pPiece);
  /* Ends the calling thread's recording. Memory for it could not be had: CUDA_ERROR_OUT_OF_MEMORY,
   * and the recording is destroyed. */
  CUresult (*RecordEnd)(CUprebuilt prebuilt);
  /* Submits piece on hStream, which must be on the channel the work was recorded for
   * (CUDA_ERROR_INVALID_HANDLE otherwise), in the stream's order, as one submission. */
  CUresult (*Launch)(CUprebuilt prebuilt, unsigned piece, CUstream hStream);
  /* *pChannel = the number of the channel hStream's work goes to (unique in the process). */
  CUresult (*StreamChannel)(CUstream hStream, unsigned long long* pChannel);
  /* Frees the recording; its memory once the GPU has finished the launches that use it. */
  CUresult (*Destroy)(CUprebuilt prebuilt);
} CUetblMinicudaPrebuilt;
extern const CUuuid CU_ETID_MinicudaPrebuilt;

#ifdef __cplusplus
}
#endif

#endif /* MINICUDA_CUDA_GRAPHS_H */
