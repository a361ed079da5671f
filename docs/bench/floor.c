/* floor.c: the least a client can do for the "1,000 clients at 1/s" case, to
   tell the kernel's share of the cost from the load tool's. N keep-alive
   connections, evenly spread due times, one timerfd, epoll, one write and
   one read per request, no parsing. See loadtest/README.md "Measured figures".
   gcc -O2 -o floor floor.c && taskset -c 0 ./floor 1000 PORT SECONDS */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <time.h>
#include <errno.h>
static long long nowns(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000LL+t.tv_nsec;}
int main(int argc,char**argv){
  int n=atoi(argv[1]); int port=atoi(argv[2]); int secs=atoi(argv[3]);
  const char*req="GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  int *fd=malloc(n*sizeof(int)); long long *off=malloc(n*sizeof(long long));
  int ep=epoll_create1(0);
  struct sockaddr_in a={0}; a.sin_family=AF_INET; a.sin_port=htons(port); a.sin_addr.s_addr=htonl(0x7f000001);
  for(int i=0;i<n;i++){fd[i]=socket(AF_INET,SOCK_STREAM,0); if(connect(fd[i],(void*)&a,sizeof a)){perror("connect");return 1;}
    int one=1; setsockopt(fd[i],IPPROTO_TCP,TCP_NODELAY,&one,sizeof one); fcntl(fd[i],F_SETFL,O_NONBLOCK);
    struct epoll_event e={.events=EPOLLIN|EPOLLET,.data.u32=i}; epoll_ctl(ep,EPOLL_CTL_ADD,fd[i],&e);
    off[i]=(long long)i*1000000000LL/n; }
  /* shuffle nothing: offsets evenly spread, order fixed */
  int tf=timerfd_create(CLOCK_MONOTONIC,TFD_NONBLOCK);
  struct epoll_event e={.events=EPOLLIN,.data.u32=0xffffffff}; epoll_ctl(ep,EPOLL_CTL_ADD,tf,&e);
  long long t0=nowns()+1000000; long long next=t0; int cur=0; long long round=0;
  struct itimerspec its={0}; its.it_value.tv_sec=next/1000000000LL; its.it_value.tv_nsec=next%1000000000LL;
  timerfd_settime(tf,TFD_TIMER_ABSTIME,&its,0);
  static char buf[65536]; long long done=0; long long end=t0+(long long)secs*1000000000LL;
  struct epoll_event ev[256];
  while(nowns()<end){
    int k=epoll_wait(ep,ev,256,-1);
    for(int j=0;j<k;j++){
      if(ev[j].data.u32==0xffffffff){ unsigned long long x; read(tf,&x,8);
        long long t=nowns();
        while(next<=t){ write(fd[cur],req,strlen(req)); cur++; if(cur==n){cur=0;round++;} next=t0+round*1000000000LL+off[cur]; }
        its.it_value.tv_sec=next/1000000000LL; its.it_value.tv_nsec=next%1000000000LL; timerfd_settime(tf,TFD_TIMER_ABSTIME,&its,0);
      } else { int r=read(fd[ev[j].data.u32],buf,sizeof buf); if(r>0) done++; }
    }
  }
  printf("responses %lld\n",done); return 0;
}
