// reshape1 command-line tool: the program. Everything it does is reshape1::cli::main (app.cpp).
#include "commands.hpp"

int main(int argc, char** argv) { return reshape1::cli::main(argc, argv); }
