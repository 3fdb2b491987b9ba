/* version.h: the colosim version, stored with every experiment. */
#ifndef COLOSIM_SIM_VERSION_H
#define COLOSIM_SIM_VERSION_H
#define COLOSIM_VERSION "0.1.0"
#endif
