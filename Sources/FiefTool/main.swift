import Fief
print(overlayHello())
