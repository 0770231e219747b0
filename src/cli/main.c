#include <stdio.h>
#include "gpu_tracker.h"

int main(void)
{
    puts("gpu-tracker " GT_VERSION);
    return 0;
}
