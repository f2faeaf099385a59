#include <iostream>
int main() { std::cout << "todo\n"; }
