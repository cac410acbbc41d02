// nvstatuscodes.h: every NV_STATUS code RM returns, as one table of name, real value and RM's
// message (OGKM src/common/sdk/nvidia/inc/nvstatuscodes.h). nvstatus.h turns it into constants
// and name/message lookups. Part of the ioctl ABI (minicuda::uapi).
#pragma once

#define NV_STATUS_CODES(X)                                                                      \
    X(NV_OK, 0x00000000, "Success")                                                             \
    X(NV_ERR_GENERIC, 0x0000FFFF, "Failure: Generic Error")                                     \
    X(NV_ERR_BROKEN_FB, 0x00000001, "Frame-Buffer broken")                                      \
    X(NV_ERR_BUFFER_TOO_SMALL, 0x00000002, "Buffer passed in is too small")                     \
    X(NV_ERR_BUSY_RETRY, 0x00000003, "System is busy, retry later")                             \
    X(NV_ERR_CARD_NOT_PRESENT, 0x00000005, "Card not detected")                                 \
    X(NV_ERR_GPU_IS_LOST, 0x0000000F, "GPU lost from the bus")                                  \
    X(NV_ERR_GPU_IN_FULLCHIP_RESET, 0x00000010, "GPU currently in full-chip reset")             \
    X(NV_ERR_GPU_NOT_FULL_POWER, 0x00000011, "GPU not in full power")                           \
    X(NV_ERR_GPU_UUID_NOT_FOUND, 0x00000012, "GPU UUID not found")                              \
    X(NV_ERR_ILLEGAL_ACTION, 0x00000016, "Current action is not allowed")                       \
    X(NV_ERR_IN_USE, 0x00000017, "Generic busy error")                                          \
    X(NV_ERR_INSUFFICIENT_RESOURCES, 0x0000001A, "Ran out of a critical resource, other than memory") \
    X(NV_ERR_INSUFFICIENT_PERMISSIONS, 0x0000001B, "The requester does not have sufficient permissions") \
    X(NV_ERR_INVALID_ACCESS_TYPE, 0x0000001D, "This type of access is not allowed")             \
    X(NV_ERR_INVALID_ADDRESS, 0x0000001E, "Address not valid")                                  \
    X(NV_ERR_INVALID_ARGUMENT, 0x0000001F, "Invalid argument to call")                          \
    X(NV_ERR_INVALID_BASE, 0x00000020, "Invalid base")                                          \
    X(NV_ERR_INVALID_CHANNEL, 0x00000021, "Given channel-id not valid")                         \
    X(NV_ERR_INVALID_CLASS, 0x00000022, "Given class-id not valid")                             \
    X(NV_ERR_INVALID_CLIENT, 0x00000023, "Given client not valid")                              \
    X(NV_ERR_INVALID_COMMAND, 0x00000024, "Command passed is not valid")                        \
    X(NV_ERR_INVALID_DATA, 0x00000025, "Invalid data passed")                                   \
    X(NV_ERR_INVALID_DEVICE, 0x00000026, "Current device is not valid")                         \
    X(NV_ERR_INVALID_DMA_SPECIFIER, 0x00000027, "The requested DMA specifier is not valid")     \
    X(NV_ERR_INVALID_EVENT, 0x00000028, "Invalid event occurred")                               \
    X(NV_ERR_INVALID_FLAGS, 0x00000029, "Invalid flags passed")                                 \
    X(NV_ERR_INVALID_FUNCTION, 0x0000002A, "Called function is not valid")                      \
    X(NV_ERR_INVALID_HEAP, 0x0000002B, "Heap corrupted")                                        \
    X(NV_ERR_INVALID_INDEX, 0x0000002C, "Index invalid")                                        \
    X(NV_ERR_INVALID_LIMIT, 0x0000002E, "Generic Error: Invalid limit")                         \
    X(NV_ERR_INVALID_LOCK_STATE, 0x0000002F, "Requested lock state not valid")                  \
    X(NV_ERR_INVALID_METHOD, 0x00000030, "Requested method not valid")                          \
    X(NV_ERR_INVALID_OBJECT, 0x00000031, "Object not valid")                                    \
    X(NV_ERR_INVALID_OBJECT_BUFFER, 0x00000032, "Object buffer passed is not valid")            \
    X(NV_ERR_INVALID_OBJECT_HANDLE, 0x00000033, "Object handle is not valid")                   \
    X(NV_ERR_INVALID_OBJECT_NEW, 0x00000034, "New object is not valid")                         \
    X(NV_ERR_INVALID_OBJECT_OLD, 0x00000035, "Old object is not valid")                         \
    X(NV_ERR_INVALID_OBJECT_PARENT, 0x00000036, "Object parent is not valid")                   \
    X(NV_ERR_INVALID_OFFSET, 0x00000037, "The offset passed is not valid")                      \
    X(NV_ERR_INVALID_OPERATION, 0x00000038, "Requested operation is not valid")                 \
    X(NV_ERR_INVALID_OWNER, 0x00000039, "Owner not valid")                                      \
    X(NV_ERR_INVALID_PARAM_STRUCT, 0x0000003A, "Invalid structure parameter")                   \
    X(NV_ERR_INVALID_PARAMETER, 0x0000003B, "At least one of the parameters passed is not valid") \
    X(NV_ERR_INVALID_PATH, 0x0000003C, "The requested path is not valid")                       \
    X(NV_ERR_INVALID_POINTER, 0x0000003D, "Pointer not valid")                                  \
    X(NV_ERR_INVALID_REQUEST, 0x0000003F, "Generic Error: Invalid request")                     \
    X(NV_ERR_INVALID_STATE, 0x00000040, "Generic Error: Invalid state")                         \
    X(NV_ERR_INVALID_STRING_LENGTH, 0x00000041, "The string length is not valid")               \
    X(NV_ERR_INVALID_READ, 0x00000042, "The requested read operation is not valid")             \
    X(NV_ERR_INVALID_WRITE, 0x00000043, "The requested write operation is not valid")           \
    X(NV_ERR_MORE_DATA_AVAILABLE, 0x0000004C, "There is more data available")                   \
    X(NV_ERR_MORE_PROCESSING_REQUIRED, 0x0000004D, "More processing required for the given call") \
    X(NV_ERR_NO_FREE_FIFOS, 0x0000004F, "No more free FIFOs found")                             \
    X(NV_ERR_NO_MEMORY, 0x00000051, "Out of memory")                                            \
    X(NV_ERR_NOT_COMPATIBLE, 0x00000054, "Generic Error: Incompatible types")                   \
    X(NV_ERR_NOT_READY, 0x00000055, "Generic Error: Not ready")                                 \
    X(NV_ERR_NOT_SUPPORTED, 0x00000056, "Call not supported")                                   \
    X(NV_ERR_OBJECT_NOT_FOUND, 0x00000057, "Requested object not found")                        \
    X(NV_ERR_OBJECT_TYPE_MISMATCH, 0x00000058, "Specified objects do not match")                \
    X(NV_ERR_OPERATING_SYSTEM, 0x00000059, "Generic operating system error")                    \
    X(NV_ERR_OUT_OF_RANGE, 0x0000005B, "The specified value is out of bounds")                  \
    X(NV_ERR_OVERLAPPING_UVM_COMMIT, 0x0000005C, "Overlapping unified virtual memory commit")   \
    X(NV_ERR_PAGE_TABLE_NOT_AVAIL, 0x0000005D, "Requested page table not available")            \
    X(NV_ERR_PID_NOT_FOUND, 0x0000005E, "Process-Id not found")                                 \
    X(NV_ERR_PROTECTION_FAULT, 0x0000005F, "Protection fault")                                  \
    X(NV_ERR_RC_ERROR, 0x00000060, "Generic RC error")                                          \
    X(NV_ERR_RESET_REQUIRED, 0x00000062, "Reset required")                                      \
    X(NV_ERR_STATE_IN_USE, 0x00000063, "State in use")                                          \
    X(NV_ERR_SIGNAL_PENDING, 0x00000064, "Signal pending")                                      \
    X(NV_ERR_TIMEOUT, 0x00000065, "Call timed out")                                             \
    X(NV_ERR_TIMEOUT_RETRY, 0x00000066, "Call timed out, please retry later")                   \
    X(NV_ERR_UVM_ADDRESS_IN_USE, 0x00000068, "Unified virtual memory requested address already in use") \
    X(NV_ERR_LIB_RM_VERSION_MISMATCH, 0x0000006A, "Library version doesn't match driver version") \
    X(NV_ERR_FEATURE_NOT_ENABLED, 0x0000006D, "Requested Feature functionality is not enabled") \
    X(NV_ERR_RESOURCE_LOST, 0x0000006E, "Requested resource has been destroyed")                \
    X(NV_ERR_FATAL_ERROR, 0x00000071, "Fatal/unrecoverable error")                              \
    X(NV_ERR_MEMORY_ERROR, 0x00000072, "Generic memory error")                                  \
    X(NV_ERR_ALREADY_SIGNALLED, 0x0000007B, "Semaphore Surface value already >= requested wait value") \
    X(NV_ERR_BUFFER_FULL, 0x00000088, "Buffer is full")                                         \
    X(NV_ERR_BUFFER_EMPTY, 0x00000089, "Buffer is empty")                                       \
    X(NV_WARN_MORE_PROCESSING_REQUIRED, 0x00010005, "WARNING More processing required for the call") \
    X(NV_WARN_NOTHING_TO_DO, 0x00010006, "WARNING Nothing to do")                               \
    X(NV_WARN_NULL_OBJECT, 0x00010007, "WARNING NULL object found")                             \
    X(NV_WARN_OUT_OF_RANGE, 0x00010008, "WARNING value out of range")
