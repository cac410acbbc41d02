// helper.h: the module corpus's Common/ (check_nvcc.sh compat_modules); compat.sh adds -I Common.
#pragma once
