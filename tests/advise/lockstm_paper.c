/* The LockSTM paper's six-function example: X and Y are shared through SwapXY, Z is separate.
 * PromptForX does I/O under L1 (non-revocable); SwapXY shares X with it (hybrid: it holds X's
 * group shared); GetY and SetY share only Y, which no non-revocable section touches, and GetZ
 * and SetZ only Z (pure). SwapXY's nested L1/L2 region is one section. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t L1 = PTHREAD_MUTEX_INITIALIZER;   /* guards X */
static pthread_mutex_t L2 = PTHREAD_MUTEX_INITIALIZER;   /* guards Y */
static pthread_mutex_t L3 = PTHREAD_MUTEX_INITIALIZER;   /* guards Z */
static int X, Y, Z;

void PromptForX(void)
{
    pthread_mutex_lock(&L1);
    printf("X is %d; new value? ", X);
    if (scanf("%d", &X) != 1)
        X = 0;
    pthread_mutex_unlock(&L1);
}

void SwapXY(void)
{
    pthread_mutex_lock(&L1);
    pthread_mutex_lock(&L2);
    int t = X;
    X = Y;
    Y = t;
    pthread_mutex_unlock(&L2);
    pthread_mutex_unlock(&L1);
}

int GetY(void)
{
    pthread_mutex_lock(&L2);
    int y = Y;
    pthread_mutex_unlock(&L2);
    return y;
}

void SetY(int v)
{
    pthread_mutex_lock(&L2);
    Y = v;
    pthread_mutex_unlock(&L2);
}

int GetZ(void)
{
    pthread_mutex_lock(&L3);
    int z = Z;
    pthread_mutex_unlock(&L3);
    return z;
}

void SetZ(int v)
{
    pthread_mutex_lock(&L3);
    Z = v;
    pthread_mutex_unlock(&L3);
}
