// Times the first touch of 1 GiB of anonymous huge-page memory (MADV_POPULATE_WRITE),
// then a memset of the same memory, three times in one process (docs/results/tpcc.md,
// "Replaced versions cut without a second write"). gcc -O2 first-touch.c && ./a.out
#include <sys/mman.h>
#include <stdio.h>
#include <time.h>
#include <string.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n=(size_t)1<<30;
  for(int r=0;r<3;r++){
    char*p=mmap(0,n+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
    p=(char*)(((size_t)p+(2<<20)-1)&~((size_t)(2<<20)-1));
    madvise(p,n,MADV_HUGEPAGE);
    double t=now(); madvise(p,n,MADV_POPULATE_WRITE); double t1=now();
    memset(p,1,n); double t2=now();
    printf("populate %.0f MB/s, memset after %.0f MB/s\n", n/1e6/(t1-t), n/1e6/(t2-t1));
    munmap(p,n);
  }
}
